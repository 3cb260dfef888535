// grid: flat indices over a grid that linearDispatch (src/kernels/spec.ts) folds into x·y once it
// passes 65535 workgroups. Folding may launch up to x − 1 surplus workgroups: callers guard i < n.

// Flat workgroup index wid.y · nwg.x + wid.x.
fn workgroup_index(wid: vec3u, nwg: vec3u) -> u32 {
  return wid.y * nwg.x + wid.x;
}

// Flat invocation index: workgroup_index · wg + lid, wg = the kernel's workgroup size.
fn invocation_index(wid: vec3u, nwg: vec3u, wg: u32, lid: u32) -> u32 {
  return workgroup_index(wid, nwg) * wg + lid;
}
