// concat_backward: demb[b, k] = dinp[b, k] for k < E, the embedding slice of the MLP input's
// gradient (the dense inputs need none). B = batch, E = S·D, Cd = dense inputs, C0 = E + Cd.
// One invocation per element of demb [B × E]. Dispatch: linearDispatch(B·E, WG).

override WG: u32 = 256u;

struct Params {
  b: u32,
  e: u32,
  cd: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dinp: array<f32>;
@group(0) @binding(2) var<storage, read_write> demb: array<f32>;

@compute @workgroup_size(WG)
fn concat_backward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.b * params.e) {
    return;
  }
  let row = i / params.e;
  let k = i % params.e;
  demb[i] = dinp[row * (params.e + params.cd) + k];
}
