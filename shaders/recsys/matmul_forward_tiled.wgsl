// matmul_forward_tiled: out[B×OC] = inp[B×C] · weightᵀ, staged through TILE×TILE workgroup tiles. B = batch rows, C = input channels, OC = output channels.
// Same sums in the same order (c = 0..C−1) as matmul_forward. Both tiles are loaded along C,
// which is contiguous in inp and in weight. Dispatch: ceil(OC / TILE) × ceil(B / TILE) workgroups.

override TILE: u32 = 16u;

struct Params {
  b: u32,
  c: u32,
  oc: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> inp: array<f32>;
@group(0) @binding(2) var<storage, read> weight: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

// tileI[r·TILE + k] = inp[tile row r, k]; tileW[o·TILE + k] = weight[tile col o, k].
var<workgroup> tileI: array<f32, TILE * TILE>;
var<workgroup> tileW: array<f32, TILE * TILE>;

@compute @workgroup_size(TILE, TILE)
fn matmul_forward_tiled(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
) {
  let row = wid.y * TILE + lid.y;
  let o = wid.x * TILE + lid.x;
  // This invocation also loads weight row wid.x·TILE + lid.y (rows of W are the output columns).
  let wrow = wid.x * TILE + lid.y;
  var acc = 0.0;
  let tiles = (params.c + TILE - 1u) / TILE;
  for (var t = 0u; t < tiles; t++) {
    let k = t * TILE + lid.x;
    var iv = 0.0;
    var wv = 0.0;
    if (row < params.b && k < params.c) {
      iv = inp[row * params.c + k];
    }
    if (wrow < params.oc && k < params.c) {
      wv = weight[wrow * params.c + k];
    }
    tileI[lid.y * TILE + lid.x] = iv;
    tileW[lid.y * TILE + lid.x] = wv;
    workgroupBarrier();
    // The last tile may run past C; stop there instead of adding padded zeros.
    let steps = min(TILE, params.c - t * TILE);
    for (var p = 0u; p < steps; p++) {
      acc += tileI[lid.y * TILE + p] * tileW[lid.x * TILE + p];
    }
    workgroupBarrier();
  }
  if (row < params.b && o < params.oc) {
    out[row * params.oc + o] = acc;
  }
}
