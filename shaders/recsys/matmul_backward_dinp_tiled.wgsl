// matmul_backward_dinp_tiled: dinp[B×C] = dout[B×OC] · weight[OC×C] via TILE×TILE workgroup tiles. B = batch rows, C = input channels, OC = output channels.
// Same sums in the same order (o = 0..OC−1) as matmul_backward_dinp.
// Dispatch: ceil(C / TILE) × ceil(B / TILE) workgroups of TILE×TILE invocations.

override TILE: u32 = 16u;

struct Params {
  b: u32,
  c: u32,
  oc: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> dinp: array<f32>;

// tileD[r·TILE + o] = dout[tile row r, o]; tileW[o·TILE + k] = weight[o, tile col k].
var<workgroup> tileD: array<f32, TILE * TILE>;
var<workgroup> tileW: array<f32, TILE * TILE>;

@compute @workgroup_size(TILE, TILE)
fn matmul_backward_dinp_tiled(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
) {
  let row = wid.y * TILE + lid.y;
  let k = wid.x * TILE + lid.x;
  var acc = 0.0;
  let tiles = (params.oc + TILE - 1u) / TILE;
  for (var t = 0u; t < tiles; t++) {
    let od = t * TILE + lid.x;
    let ow = t * TILE + lid.y;
    var dv = 0.0;
    var wv = 0.0;
    if (row < params.b && od < params.oc) {
      dv = dout[row * params.oc + od];
    }
    if (ow < params.oc && k < params.c) {
      wv = weight[ow * params.c + k];
    }
    tileD[lid.y * TILE + lid.x] = dv;
    tileW[lid.y * TILE + lid.x] = wv;
    workgroupBarrier();
    let steps = min(TILE, params.oc - t * TILE);
    for (var p = 0u; p < steps; p++) {
      acc += tileD[lid.y * TILE + p] * tileW[p * TILE + lid.x];
    }
    workgroupBarrier();
  }
  if (row < params.b && k < params.c) {
    dinp[row * params.c + k] = acc;
  }
}
