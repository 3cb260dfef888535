// histogram_build_wg: same histogram as histogram_build.wgsl, privatised per workgroup: each
// workgroup owns (row block, feature chunk, slot), accumulates the chunk's bins for that slot in
// var<workgroup> 64-bit pairs, then flushes the non-zero ones with storage atomics. Wins where
// workgroup atomics are cheap (real GPUs); on SwiftShader they are slow, but it stays exact.
// N = rows, F = features, B = total bins, S = slots, C = feature chunks (each ≤ WG_BINS bins).
// Dispatch: linearDispatch(R · C · S · WG, WG) with R = ceil(N / ROWS) row blocks.

override WG: u32 = 256u;
// Bins of the private histogram (16 bytes each): 1024 fills the 16 KiB every device allows.
override WG_BINS: u32 = 1024u;
// Rows per workgroup.
override ROWS: u32 = 4096u;

struct Params {
  n: u32,
  f: u32,
  rowWords: u32,
  b: u32,
  slots: u32,
  chunks: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bins: array<u32>;
@group(0) @binding(2) var<storage, read> missOff: array<u32>;
@group(0) @binding(3) var<storage, read> cutPtrs: array<u32>;
@group(0) @binding(4) var<storage, read> qgpair: array<vec2<i32>>;
@group(0) @binding(5) var<storage, read> positions: array<u32>;
@group(0) @binding(6) var<storage, read> nodeSlot: array<i32>;
@group(0) @binding(7) var<storage, read_write> hist: array<atomic<u32>>;
// 2 u32 per chunk: first feature, end feature (exclusive); its bins fit in WG_BINS.
@group(0) @binding(8) var<storage, read> chunks: array<u32>;

const ROW_UNUSED: u32 = 0xFFFFFFFFu;

// [gLo, gHi, hLo, hHi] per private bin.
var<workgroup> local: array<atomic<u32>, WG_BINS * 4u>;

// 64-bit local[at..at+1] += v (sign extension + carry into hi in one atomic, skipped when 0).
fn addLocal(at: u32, v: i32) {
  if (v == 0) {
    return;
  }
  let hi = i64_hi_of_add(v, atomicAdd(&local[at], bitcast<u32>(v)));
  if (hi != 0u) {
    atomicAdd(&local[at + 1u], hi);
  }
}

// 64-bit hist[at..at+1] += (lo, hi).
fn addGlobal(at: u32, lo: u32, hi: u32) {
  var carry = 0u;
  if (lo != 0u) {
    carry = i64_carry(atomicAdd(&hist[at], lo), lo);
  }
  if (hi + carry != 0u) {
    atomicAdd(&hist[at + 1u], hi + carry);
  }
}

fn rowSlot(i: u32) -> i32 {
  let p = positions[i];
  if (p == ROW_UNUSED || p >= arrayLength(&nodeSlot)) {
    return -1;
  }
  return nodeSlot[p];
}

// Adds row i's pair to the private bins of features [f0, f1), whose first global bin is bin0.
fn accumulateRow(i: u32, f0: u32, f1: u32, bin0: u32) {
  let q = qgpair[i];
  for (var f = f0; f < f1; f++) {
    // Byte (i & 3) of word (f · rowWords + i / 4): feature f's slice of the binned matrix.
    let s = (bins[f * params.rowWords + (i >> 2u)] >> ((i & 3u) * 8u)) & 0xFFu;
    let miss = missOff[f];
    if (s < miss) {
      continue;
    }
    let bin = cutPtrs[f] + s - miss;
    if (bin >= cutPtrs[f + 1u] || bin - bin0 >= WG_BINS) {
      continue;
    }
    addLocal((bin - bin0) * 4u, q.x);
    addLocal((bin - bin0) * 4u + 2u, q.y);
  }
}

@compute @workgroup_size(WG)
fn histogram_build_wg(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat workgroup index → (row block, chunk, slot); uniform per workgroup, so the early return
  // keeps the barriers below in uniform control flow.
  let w = workgroup_index(wid, nwg);
  let blocks = (params.n + ROWS - 1u) / ROWS;
  if (w >= blocks * params.chunks * params.slots) {
    return;
  }
  let block = w % blocks;
  let chunk = (w / blocks) % params.chunks;
  let slot = i32(w / (blocks * params.chunks));
  let f0 = chunks[2u * chunk];
  let f1 = chunks[2u * chunk + 1u];
  let bin0 = cutPtrs[f0];
  let width = min(cutPtrs[f1] - bin0, WG_BINS);
  for (var k = lid; k < width * 4u; k += WG) {
    atomicStore(&local[k], 0u);
  }
  workgroupBarrier();
  let r1 = min(params.n, (block + 1u) * ROWS);
  for (var i = block * ROWS + lid; i < r1; i += WG) {
    if (rowSlot(i) == slot) {
      accumulateRow(i, f0, f1, bin0);
    }
  }
  workgroupBarrier();
  for (var k = lid; k < width; k += WG) {
    let at = ((u32(slot) * params.b) + bin0 + k) * 4u;
    if (at + 3u < arrayLength(&hist)) {
      addGlobal(at, atomicLoad(&local[4u * k]), atomicLoad(&local[4u * k + 1u]));
      addGlobal(at + 2u, atomicLoad(&local[4u * k + 2u]), atomicLoad(&local[4u * k + 3u]));
    }
  }
}
