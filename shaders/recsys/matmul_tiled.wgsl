// matmul_tiled: c[M×N] = op(a) · op(b) (+ c when params.accumulate = 1), staged through TILE×TILE
// workgroup tiles. M = rows of c, K = inner dim, N = cols of c; op(a) [M×K] is a [M×K] row-major,
// or a [K×M] read transposed when TRANS_A; op(b) [K×N] is b [K×N], or b [N×K] when TRANS_B.
// The recommender's three products are three layouts of this kernel (src/kernels/recsys/matmul_tiled.ts):
// forward out = inp · weightᵀ (TRANS_B), dinp = dout · weight, dweight = doutᵀ · inp (TRANS_A).
// Sums p = 0..K−1 in order, as the naive kernels do. Dispatch: ceil(N / TILE) × ceil(M / TILE)
// workgroups of TILE×TILE invocations.

override TILE: u32 = 16u;
override TRANS_A: bool = false;
override TRANS_B: bool = false;

struct Params {
  m: u32,
  k: u32,
  n: u32,
  // 1: c += sum (gradient accumulation); 0: c = sum.
  accumulate: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

// tileA[r·TILE + p] = op(a)[tile row r, tile k p]; tileB[p·TILE + j] = op(b)[tile k p, tile col j].
var<workgroup> tileA: array<f32, TILE * TILE>;
var<workgroup> tileB: array<f32, TILE * TILE>;

// op(a)[r, p], 0 outside [M×K].
fn load_a(r: u32, p: u32) -> f32 {
  if (r >= params.m || p >= params.k) {
    return 0.0;
  }
  if (TRANS_A) {
    return a[p * params.m + r];
  }
  return a[r * params.k + p];
}

// op(b)[p, j], 0 outside [K×N].
fn load_b(p: u32, j: u32) -> f32 {
  if (p >= params.k || j >= params.n) {
    return 0.0;
  }
  if (TRANS_B) {
    return b[j * params.k + p];
  }
  return b[p * params.n + j];
}

@compute @workgroup_size(TILE, TILE)
fn matmul_tiled(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(local_invocation_id) lid: vec3u,
) {
  let row0 = wid.y * TILE;
  let col0 = wid.x * TILE;
  // Each load runs along the stored matrix's contiguous dimension under lid.x: a transposed
  // operand swaps which tile coordinate lid.x picks.
  let ar = select(lid.y, lid.x, TRANS_A);
  let ap = select(lid.x, lid.y, TRANS_A);
  let bp = select(lid.y, lid.x, TRANS_B);
  let bj = select(lid.x, lid.y, TRANS_B);
  var acc = 0.0;
  let tiles = (params.k + TILE - 1u) / TILE;
  for (var t = 0u; t < tiles; t++) {
    let k0 = t * TILE;
    tileA[ar * TILE + ap] = load_a(row0 + ar, k0 + ap);
    tileB[bp * TILE + bj] = load_b(k0 + bp, col0 + bj);
    workgroupBarrier();
    // The last tile may run past K; stop there instead of adding padded zeros.
    let steps = min(TILE, params.k - k0);
    for (var p = 0u; p < steps; p++) {
      acc += tileA[lid.y * TILE + p] * tileB[p * TILE + lid.x];
    }
    workgroupBarrier();
  }
  let row = row0 + lid.y;
  let col = col0 + lid.x;
  if (row < params.m && col < params.n) {
    let i = row * params.n + col;
    if (params.accumulate != 0u) {
      acc = c[i] + acc;
    }
    c[i] = acc;
  }
}
