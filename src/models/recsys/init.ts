/**
 * Seeded initialisation (documented choice):
 * - embeddings ~ N(0, 0.01²): small, so an id seen once or never adds little noise to the MLP
 *   input (DLRM/torchrec use similarly small scales; PyTorch's N(0, 1) default is far too large here);
 * - dense weights ~ U(−1/√C, 1/√C): PyTorch `nn.Linear`'s default (kaiming_uniform_ with a = √5);
 * - biases 0.
 * One Rng(seed) draws embeddings first (row-major), then w0, w1, … in layout order.
 */
import { Rng } from '../../util/rng.ts'
import { denseTensors } from './layout.ts'
import type { ModelShape, ModelWeights, OptimizerState, RecsysParams } from './types.ts'

/** Standard deviation of the embedding init. */
export const EMBEDDING_INIT_STD = 0.01

/** Fresh weights for `shape` from `seed`. */
export function initWeights(shape: ModelShape, seed: number): ModelWeights {
  const rng = new Rng(seed)
  const embeddings = new Float32Array(shape.totalRows * shape.dim)
  for (let i = 0; i < embeddings.length; i++) embeddings[i] = rng.normal() * EMBEDDING_INIT_STD
  const dense = denseTensors(shape).map(t => {
    const a = new Float32Array(t.length)
    if (t.name.startsWith('w')) {
      const bound = 1 / Math.sqrt(t.cols)
      for (let i = 0; i < a.length; i++) a[i] = rng.uniform(-bound, bound)
    }
    return a
  })
  return { embeddings, dense }
}

/** Zeroed optimizer state for `shape` under `params`' optimizers (step 0). */
export function initOptimizerState(
  shape: ModelShape,
  params: Pick<RecsysParams, 'embedding_optimizer'>,
): OptimizerState {
  const tensors = denseTensors(shape)
  const zeros = (): Float32Array<ArrayBuffer>[] => tensors.map(t => new Float32Array(t.length))
  const state: OptimizerState = { step: 0, m: zeros(), v: zeros() }
  const rd = shape.totalRows * shape.dim
  if (params.embedding_optimizer === 'adagrad') state.accum = new Float32Array(rd)
  else {
    state.embM = new Float32Array(rd)
    state.embV = new Float32Array(rd)
    state.rowStep = new Uint32Array(shape.totalRows)
  }
  return state
}
