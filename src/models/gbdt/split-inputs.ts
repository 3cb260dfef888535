/**
 * The split_evaluate kernel's per-call inputs both backends build the same way: its parameters
 * from the run's, and the `nodeSums` buffer — each node's exact sums, then (monotone constraints
 * on) each node's weight bounds (layout.ts NODE_BOUND_WORDS). M = nodes evaluated.
 */
import { NODE_BOUND_WORDS, type SplitParams } from '../../kernels/gbdt/layout.ts'
import type { BackendSetup, EvalRequest } from './backend.ts'

/** split_evaluate's parameters for a run. */
export function splitParams(s: BackendSetup): SplitParams {
  const p = s.params
  return {
    lambda: p.lambda,
    alpha: p.alpha,
    minChildWeight: p.min_child_weight,
    maxCatThreshold: p.max_cat_threshold,
    maxDeltaStep: p.max_delta_step,
    constrained: s.monotone !== undefined,
  }
}

/**
 * u32 [M × 4] exact sums ([gLo, gHi, hLo, hHi] from `sums`) of `nodes`, followed when `bounded` by
 * [M × NODE_BOUND_WORDS] f32 bits of their EvalRequest.bounds.
 */
export function nodeSumsWithBounds(
  nodes: readonly EvalRequest[],
  bounded: boolean,
  sums: (nid: number) => Uint32Array,
): Uint32Array<ArrayBuffer> {
  const M = nodes.length
  const out = new Uint32Array(M * 4 + (bounded ? M * NODE_BOUND_WORDS : 0))
  const f32 = new Float32Array(out.buffer)
  nodes.forEach((r, m) => {
    out.set(sums(r.nid), m * 4)
    if (!bounded) return
    if (!r.bounds) throw new Error(`split search: node ${r.nid} has no weight bounds under monotone constraints`)
    f32.set(r.bounds, M * 4 + m * NODE_BOUND_WORDS)
  })
  return out
}
