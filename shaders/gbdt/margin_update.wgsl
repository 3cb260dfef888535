// margin_update: margins[i] += leafValue[positions[i]] for rows with a valid position (leaf
// values include eta). N = rows, K = tree nodes. Dispatch: linearDispatch(N, WG), one row each.

override WG: u32 = 256u;

struct Params {
  rows: u32,
  nodes: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> positions: array<u32>;
@group(0) @binding(2) var<storage, read> leafValue: array<f32>;
@group(0) @binding(3) var<storage, read_write> margins: array<f32>;

@compute @workgroup_size(WG)
fn margin_update(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat row index over the folded x·y grid.
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.rows) {
    return;
  }
  // 0xFFFFFFFF (row not sampled) is ≥ nodes too.
  let node = positions[i];
  if (node >= params.nodes) {
    return;
  }
  margins[i] = margins[i] + leafValue[node];
}
