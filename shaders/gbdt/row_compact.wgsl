// row_compact: the rows whose node is built this level (nodeSlot[positions[i]] ≥ 0) as a compact
// u32 list, so histogram_build_rows works on those rows only. N = rows. Two entry points:
//   row_compact: dispatch linearDispatch(ceil(N / RPI), WG); count[0] must be zero before.
//     Invocation k takes rows [k·RPI, (k+1)·RPI), counts its built rows, reserves that many
//     entries with ONE atomicAdd on count[0] and writes them in row order. Blocks land in
//     atomic order, which may vary between runs; histogram sums are exact integers (64-bit
//     two's complement, order-free), so the histogram does not depend on the list's order.
//   row_compact_args: dispatch (1, 1, 1), after row_compact (a later dispatch in the same pass
//     sees its writes). args[0..2] = workgroups for count[0] · groups items at `wg` items per
//     workgroup, folded as linearDispatch folds (x ≤ 65535): indirect dispatch arguments, so the
//     count never crosses to the CPU.

override WG: u32 = 256u;
// Rows per invocation of row_compact.
override RPI: u32 = 16u;

struct Params {
  n: u32,
  groups: u32,
  wg: u32,
}

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> positions: array<u32>;
@group(0) @binding(2) var<storage, read> nodeSlot: array<i32>;
@group(0) @binding(3) var<storage, read_write> rows: array<u32>;
@group(0) @binding(4) var<storage, read_write> count: array<atomic<u32>>;
@group(0) @binding(5) var<storage, read_write> args: array<u32>;

const ROW_UNUSED: u32 = 0xFFFFFFFFu;
const MAX_DIM: u32 = 65535u;

// True when row i's node is built this level (same test as histogram_build's rowSlot).
fn built(i: u32) -> bool {
  let p = positions[i];
  return p != ROW_UNUSED && p < arrayLength(&nodeSlot) && nodeSlot[p] >= 0;
}

@compute @workgroup_size(WG)
fn row_compact(
  @builtin(workgroup_id) wid: vec3u,
  @builtin(num_workgroups) nwg: vec3u,
  @builtin(local_invocation_index) lid: u32,
) {
  let i0 = ((wid.y * nwg.x + wid.x) * WG + lid) * RPI;
  let i1 = min(params.n, i0 + RPI);
  var c = 0u;
  for (var i = i0; i < i1; i++) {
    c += select(0u, 1u, built(i));
  }
  if (c == 0u) {
    return;
  }
  var at = atomicAdd(&count[0], c);
  for (var i = i0; i < i1; i++) {
    if (built(i)) {
      rows[at] = i;
      at++;
    }
  }
}

@compute @workgroup_size(1)
fn row_compact_args() {
  let items = atomicLoad(&count[0]) * params.groups;
  let g = (items + params.wg - 1u) / params.wg;
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
