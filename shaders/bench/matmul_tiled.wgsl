// matmul_tiled: C = A·B in f32, row-major, staged through TILE×TILE workgroup tiles.
// M = rows of A and C, K = inner dim, N = cols of B and C. Sums in the same order as
// matmul_naive (p = 0..K-1), so results match it up to FMA contraction.
// Dispatch: ceil(N / TILE) × ceil(M / TILE) workgroups of TILE×TILE invocations.

override TILE: u32 = 16u;

struct Params {
  m: u32,
  k: u32,
  n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

var<workgroup> tileA: array<f32, TILE * TILE>;
var<workgroup> tileB: array<f32, TILE * TILE>;

@compute @workgroup_size(TILE, TILE)
fn matmul_tiled(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
) {
  let row = wid.y * TILE + lid.y;
  let col = wid.x * TILE + lid.x;
  var acc = 0.0;
  let tiles = (params.k + TILE - 1u) / TILE;
  for (var t = 0u; t < tiles; t++) {
    // This invocation loads a[row, t·TILE + lid.x] and b[t·TILE + lid.y, col]; zero outside.
    let ak = t * TILE + lid.x;
    let bk = t * TILE + lid.y;
    var av = 0.0;
    var bv = 0.0;
    if (row < params.m && ak < params.k) {
      av = a[row * params.k + ak];
    }
    if (bk < params.k && col < params.n) {
      bv = b[bk * params.n + col];
    }
    tileA[lid.y * TILE + lid.x] = av;
    tileB[lid.y * TILE + lid.x] = bv;
    workgroupBarrier();
    // The last tile may run past K; its padded zeros add nothing.
    let steps = min(TILE, params.k - t * TILE);
    for (var p = 0u; p < steps; p++) {
      acc += tileA[lid.y * TILE + p] * tileB[p * TILE + lid.x];
    }
    workgroupBarrier();
  }
  if (row < params.m && col < params.n) {
    c[row * params.n + col] = acc;
  }
}
