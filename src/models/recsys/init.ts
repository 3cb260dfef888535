/**
 * Seeded initialisation (documented choice):
 * - embeddings ~ N(0, 0.01²): small, so an id seen once or never adds little noise to the MLP
 *   input (DLRM/torchrec use similarly small scales; PyTorch's N(0, 1) default is far too large here);
 * - MLP weights ~ U(−1/√C, 1/√C): PyTorch `nn.Linear`'s default (kaiming_uniform_ with a = √5);
 * - cross kernels c{k}.w, c{k}.v, c{k}.u ~ Glorot uniform U(±√(6 / (fan_in + fan_out))): the
 *   default of Keras-RS `FeatureCross`, the DCN-v2 layer of Keras Recommenders (TF-Recommenders'
 *   `tfrs.layers.dcn.Cross` uses a truncated normal instead); its bias zeros, as in both;
 * - biases 0.
 * One Rng(seed) draws embeddings first (row-major), then every weight tensor in layout order
 * (cross kernels, then w0, w1, …), so an 'mlp' model draws what it drew before cross layers existed.
 */
import { Rng } from '../../util/rng.ts'
import { denseTensors } from './layout.ts'
import type { DenseTensor, ModelShape, ModelWeights, OptimizerState, RecsysParams } from './types.ts'

/** Standard deviation of the embedding init. */
export const EMBEDDING_INIT_STD = 0.01

/** Fresh weights for `shape` from `seed`. */
export function initWeights(shape: ModelShape, seed: number): ModelWeights {
  const rng = new Rng(seed)
  const embeddings = new Float32Array(shape.totalRows * shape.dim)
  for (let i = 0; i < embeddings.length; i++) embeddings[i] = rng.normal() * EMBEDDING_INIT_STD
  const dense = denseTensors(shape).map(t => {
    const a = new Float32Array(t.length)
    const bound = initBound(t)
    if (bound > 0) for (let i = 0; i < a.length; i++) a[i] = rng.uniform(-bound, bound)
    return a
  })
  return { embeddings, dense }
}

/** Half-width of a weight tensor's uniform init; 0 for biases (zeros). */
export function initBound(t: DenseTensor): number {
  if (/^c\d+\.[wuv]$/.test(t.name)) return Math.sqrt(6 / (t.rows + t.cols))
  if (/^w\d+$/.test(t.name)) return 1 / Math.sqrt(t.cols)
  return 0
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
