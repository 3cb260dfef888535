// histogram_build: hist[slot, bin] += (qg, qh) of every row in a node being built, as exact
// 64-bit sums (u32 lo/hi pairs, carry detected from atomicAdd's old value), storage atomics.
// N = rows, F = features, B = total bins, S = slots; layouts in src/models/gbdt/types.ts.
// Dispatch: linearDispatch(N · G, WG), G = ceil(F / FPI): invocation (row i, feature group c)
// adds row i's features [c·FPI, (c+1)·FPI). FPI = 1: one per (row, feature); FPI ≥ F: one per row.
// histogram_build_rows: the same over the K = rowCount[0] rows listed in rows[0..K) (row_compact's
// output): invocation (k, c) adds row rows[k]. Dispatched indirectly with row_compact_args (K · G
// items, WG per workgroup), it touches only the built nodes' rows instead of all N — and on
// SIMD-lane hardware (SwiftShader) no lane idles on an unbuilt row while its neighbours loop.
// histogram_build_classes (multiclass, classes = K > 1: the round's K class trees in one pass):
// qgpair and positions hold K entries per row, (row i, class k) at i·K + k, each in its own node;
// an invocation reads row i's bin of each of its features once and adds the K pairs to their K
// nodes' slots. histogram_build and histogram_build_rows (K = 1) do not read `classes`.

override WG: u32 = 256u;
// Features per invocation.
override FPI: u32 = 32u;

struct Params {
  n: u32,
  f: u32,
  rowWords: u32,
  b: u32,
  classes: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> bins: array<u32>;
@group(0) @binding(2) var<storage, read> missOff: array<u32>;
@group(0) @binding(3) var<storage, read> cutPtrs: array<u32>;
@group(0) @binding(4) var<storage, read> qgpair: array<vec2<i32>>;
@group(0) @binding(5) var<storage, read> positions: array<u32>;
@group(0) @binding(6) var<storage, read> nodeSlot: array<i32>;
@group(0) @binding(7) var<storage, read_write> hist: array<atomic<u32>>;
// histogram_build_rows only: the row list and its length.
@group(0) @binding(8) var<storage, read> rows: array<u32>;
@group(0) @binding(9) var<storage, read> rowCount: array<u32>;

const ROW_UNUSED: u32 = 0xFFFFFFFFu;

// 64-bit two's-complement hist[at..at+1] += v: one atomic on lo; hi gets sign extension + carry
// in one atomic, skipped when that is 0 (v ≥ 0 without carry, or v < 0 with carry).
fn add64(at: u32, v: i32) {
  if (v == 0) {
    return;
  }
  let hi = i64_hi_of_add(v, atomicAdd(&hist[at], bitcast<u32>(v)));
  if (hi != 0u) {
    atomicAdd(&hist[at + 1u], hi);
  }
}

// Histogram slot of row i, or −1 when the row is unused or its node is not built this pass.
fn rowSlot(i: u32) -> i32 {
  let p = positions[i];
  if (p == ROW_UNUSED || p >= arrayLength(&nodeSlot)) {
    return -1;
  }
  return nodeSlot[p];
}

@compute @workgroup_size(WG)
fn histogram_build(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  // Flat index over the folded x·y grid → (row i, feature group c); rows vary fastest so
  // neighbouring invocations read neighbouring bytes of one feature's bins.
  let idx = invocation_index(wid, nwg, WG, lid);
  let groups = (params.f + FPI - 1u) / FPI;
  if (idx >= params.n * groups) {
    return;
  }
  let i = idx % params.n;
  let c = idx / params.n;
  let slot = rowSlot(i);
  if (slot < 0) {
    return;
  }
  addRow(i, c, u32(slot));
}

// Entries of one row gathered per batch of histogram_build_classes: (entry, slot) of its built classes.
const CLASS_BATCH: u32 = 32u;

// histogram_build with classes = K > 1: invocation (row i, feature group c) adds row i's K
// entries, each to its own node's slot, reading each bin of row i once per batch of up to
// CLASS_BATCH built entries (every batch when K > CLASS_BATCH). Same dispatch as histogram_build.
@compute @workgroup_size(WG)
fn histogram_build_classes(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let idx = invocation_index(wid, nwg, WG, lid);
  let groups = (params.f + FPI - 1u) / FPI;
  if (idx >= params.n * groups) {
    return;
  }
  let i = idx % params.n;
  let c = idx / params.n;
  let K = params.classes;
  var entry: array<u32, CLASS_BATCH>;
  var slot: array<u32, CLASS_BATCH>;
  var k = 0u;
  while (k < K) {
    // The next batch of this row's entries that sit in built nodes.
    var m = 0u;
    while (k < K && m < CLASS_BATCH) {
      let e = i * K + k;
      let s = rowSlot(e);
      if (s >= 0) {
        entry[m] = e;
        slot[m] = u32(s);
        m++;
      }
      k++;
    }
    if (m == 0u) {
      continue;
    }
    let f1 = min(params.f, (c + 1u) * FPI);
    for (var f = c * FPI; f < f1; f++) {
      let s = (bins[f * params.rowWords + (i >> 2u)] >> ((i & 3u) * 8u)) & 0xFFu;
      let miss = missOff[f];
      if (s < miss) {
        continue;
      }
      let bin = cutPtrs[f] + s - miss;
      if (bin >= cutPtrs[f + 1u]) {
        continue;
      }
      for (var j = 0u; j < m; j++) {
        let at = (slot[j] * params.b + bin) * 4u;
        if (at + 3u >= arrayLength(&hist)) {
          continue;
        }
        let q = qgpair[entry[j]];
        add64(at, q.x);
        add64(at + 2u, q.y);
      }
    }
  }
}

// Adds row i's features [c·FPI, min(F, (c+1)·FPI)) into `slot`.
fn addRow(i: u32, c: u32, slot: u32) {
  let q = qgpair[i];
  let f1 = min(params.f, (c + 1u) * FPI);
  for (var f = c * FPI; f < f1; f++) {
    // Byte (i & 3) of word (f · rowWords + i / 4): feature f's slice of the binned matrix.
    let s = (bins[f * params.rowWords + (i >> 2u)] >> ((i & 3u) * 8u)) & 0xFFu;
    let miss = missOff[f];
    if (s < miss) {
      continue;
    }
    let bin = cutPtrs[f] + s - miss;
    let at = (slot * params.b + bin) * 4u;
    if (bin >= cutPtrs[f + 1u] || at + 3u >= arrayLength(&hist)) {
      continue;
    }
    add64(at, q.x);
    add64(at + 2u, q.y);
  }
}

@compute @workgroup_size(WG)
fn histogram_build_rows(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let idx = invocation_index(wid, nwg, WG, lid);
  let groups = (params.f + FPI - 1u) / FPI;
  // The list never exceeds N rows (a stale count must not read past it).
  let k = min(rowCount[0], min(params.n, arrayLength(&rows)));
  if (idx >= k * groups) {
    return;
  }
  let i = rows[idx % k];
  let c = idx / k;
  if (i >= params.n) {
    return;
  }
  let slot = rowSlot(i);
  if (slot < 0) {
    return;
  }
  addRow(i, c, u32(slot));
}
