// concat_forward: inp[b, :] = [emb[b, 0 .. E), dense[b, 0 .. Cd)], the MLP input of row b.
// B = batch, E = S·D embedding floats per row, Cd = dense inputs, C0 = E + Cd.
// One invocation per element of inp [B × C0]. Dispatch: linearDispatch(B·C0, WG).

override WG: u32 = 256u;

struct Params {
  b: u32,
  e: u32,
  cd: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> emb: array<f32>;
@group(0) @binding(2) var<storage, read> dense: array<f32>;
@group(0) @binding(3) var<storage, read_write> inp: array<f32>;

@compute @workgroup_size(WG)
fn concat_forward(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let c0 = params.e + params.cd;
  let i = invocation_index(wid, nwg, WG, lid);
  if (i >= params.b * c0) {
    return;
  }
  let row = i / c0;
  let k = i % c0;
  if (k < params.e) {
    inp[i] = emb[row * params.e + k];
  } else {
    inp[i] = dense[row * params.cd + (k - params.e)];
  }
}
