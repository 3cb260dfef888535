// row_compact: the rows whose node is built this level (slot = nodeSlot[positions[i]] in
// [0, S)) as a u32 list grouped by slot (a counting sort), so histogram_build_rows touches only
// those rows, one slot's histogram after another: consecutive invocations then add into the
// same 16·B-byte slot instead of scattering over S of them (on SwiftShader, a CPU, that keeps
// the atomics in cache). N = rows, S = slots. count = [total, per-slot counts × S, per-slot
// cursors × S], zero before the first pass. Three entry points, in order (one compute pass:
// each dispatch sees the previous ones' writes):
//   row_compact: linearDispatch(ceil(N / RPI), WG): count[1 + s] = rows of slot s.
//   row_compact_scan: (1, 1, 1): cursors = exclusive prefix sums of the counts, count[0] = total;
//     args[0..2] = workgroups for total · groups items at `wg` per workgroup, folded as
//     linearDispatch folds (x ≤ 65535): indirect dispatch arguments, the count stays on the GPU.
//   row_compact_scatter: as row_compact: rows[cursor[s]++] = i. Order within a slot follows the
//     atomics and may vary between runs; histogram sums are exact integers (64-bit two's
//     complement, order-free), so the histogram does not depend on it.

override WG: u32 = 256u;
// Rows per invocation of row_compact and row_compact_scatter.
override RPI: u32 = 16u;

struct Params {
  n: u32,
  groups: u32,
  wg: u32,
  slots: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> positions: array<u32>;
@group(0) @binding(2) var<storage, read> nodeSlot: array<i32>;
@group(0) @binding(3) var<storage, read_write> rows: array<u32>;
@group(0) @binding(4) var<storage, read_write> count: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> args: array<u32>;

const ROW_UNUSED: u32 = 0xFFFFFFFFu;
const MAX_DIM: u32 = 65535u;

// Slot of row i, or S when its node is not built (same test as histogram_build's rowSlot).
fn slotOf(i: u32) -> u32 {
  let p = positions[i];
  if (p == ROW_UNUSED || p >= arrayLength(&nodeSlot)) {
    return params.slots;
  }
  let s = nodeSlot[p];
  return select(params.slots, u32(s), s >= 0 && u32(s) < params.slots);
}

@compute @workgroup_size(WG)
fn row_compact(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i0 = invocation_index(wid, nwg, WG, lid) * RPI;
  let i1 = min(params.n, i0 + RPI);
  // Runs of one slot cost one atomic (rows of a node are often neighbours after early splits).
  var run = params.slots;
  var c = 0u;
  for (var i = i0; i < i1; i++) {
    let s = slotOf(i);
    if (s != run) {
      if (c > 0u && run < params.slots) {
        atomicAdd(&count[1u + run], c);
      }
      run = s;
      c = 0u;
    }
    c++;
  }
  if (c > 0u && run < params.slots) {
    atomicAdd(&count[1u + run], c);
  }
}

@compute @workgroup_size(1)
fn row_compact_scan() {
  var total = 0u;
  for (var s = 0u; s < params.slots; s++) {
    let c = atomicLoad(&count[1u + s]);
    atomicStore(&count[1u + params.slots + s], total);
    total += c;
  }
  atomicStore(&count[0], total);
  let g = (total * params.groups + params.wg - 1u) / params.wg;
  if (g <= MAX_DIM) {
    args[0] = g;
    args[1] = select(0u, 1u, g > 0u);
    args[2] = select(0u, 1u, g > 0u);
    return;
  }
  let y = (g + MAX_DIM - 1u) / MAX_DIM;
  args[0] = (g + y - 1u) / y;
  args[1] = y;
  args[2] = 1u;
}

@compute @workgroup_size(WG)
fn row_compact_scatter(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i0 = invocation_index(wid, nwg, WG, lid) * RPI;
  let i1 = min(params.n, i0 + RPI);
  for (var i = i0; i < i1; i++) {
    let s = slotOf(i);
    if (s < params.slots) {
      rows[atomicAdd(&count[1u + params.slots + s], 1u)] = i;
    }
  }
}
