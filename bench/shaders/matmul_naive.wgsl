// matmul_naive: C = A·B in f32, row-major. M = rows of A and C, K = inner dim, N = cols of B and C.
// One invocation per C element, K multiply-adds from global memory (version 1, kept for parity).
// Dispatch: ceil(N / WX) × ceil(M / WY) workgroups.

override WX: u32 = 16u;
override WY: u32 = 16u;

struct Params {
  m: u32,
  k: u32,
  n: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> c: array<f32>;

@compute @workgroup_size(WX, WY)
fn matmul_naive(@builtin(global_invocation_id) gid: vec3u) {
  let row = gid.y;
  let col = gid.x;
  if (row >= params.m || col >= params.n) {
    return;
  }
  var acc = 0.0;
  for (var p = 0u; p < params.k; p++) {
    // a[row, p] · b[p, col]
    acc += a[row * params.k + p] * b[p * params.n + col];
  }
  c[row * params.n + col] = acc;
}
