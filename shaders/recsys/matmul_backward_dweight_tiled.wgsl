// matmul_backward_dweight_tiled: dweight[OC×C] = doutᵀ · inp via TILE×TILE workgroup tiles; dout [B×OC], inp [B×C]. B = batch rows, C = input channels, OC = output channels.
// Same sums in the same order (b = 0..B−1) as matmul_backward_dweight; overwrites, or adds when
// params.accumulate = 1. Dispatch: ceil(C / TILE) × ceil(OC / TILE) workgroups.

override TILE: u32 = 16u;

struct Params {
  b: u32,
  c: u32,
  oc: u32,
  // 1: dweight += sum (gradient accumulation); 0: dweight = sum.
  accumulate: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dout: array<f32>;
@group(0) @binding(2) var<storage, read> inp: array<f32>;
@group(0) @binding(3) var<storage, read_write> dweight: array<f32>;

// tileD[r·TILE + o] = dout[row r of the tile, tile col o]; tileI[r·TILE + k] = inp[row r, tile col k].
var<workgroup> tileD: array<f32, TILE * TILE>;
var<workgroup> tileI: array<f32, TILE * TILE>;

@compute @workgroup_size(TILE, TILE)
fn matmul_backward_dweight_tiled(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
) {
  let o = wid.y * TILE + lid.y;
  let k = wid.x * TILE + lid.x;
  // Loads run along rows of dout/inp (contiguous in o and k): lid.y picks the row in the tile.
  let od = wid.y * TILE + lid.x;
  var acc = 0.0;
  let tiles = (params.b + TILE - 1u) / TILE;
  for (var t = 0u; t < tiles; t++) {
    let row = t * TILE + lid.y;
    var dv = 0.0;
    var iv = 0.0;
    if (row < params.b && od < params.oc) {
      dv = dout[row * params.oc + od];
    }
    if (row < params.b && k < params.c) {
      iv = inp[row * params.c + k];
    }
    tileD[lid.y * TILE + lid.x] = dv;
    tileI[lid.y * TILE + lid.x] = iv;
    workgroupBarrier();
    let steps = min(TILE, params.b - t * TILE);
    for (var p = 0u; p < steps; p++) {
      acc += tileD[p * TILE + lid.y] * tileI[p * TILE + lid.x];
    }
    workgroupBarrier();
  }
  if (o < params.oc && k < params.c) {
    let i = o * params.c + k;
    if (params.accumulate != 0u) {
      acc = dweight[i] + acc;
    }
    dweight[i] = acc;
  }
}
