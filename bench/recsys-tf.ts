/**
 * The TF.js peer of the `recsys` suite (bench-only devDependency): the same architecture as our
 * recommender — one embedding matrix over the global row index (all tables in one [R × D] variable,
 * as ours), the S looked-up rows flattened and concatenated with the dense inputs, Dense(relu) per hidden layer, Dense(1)
 * logit, sigmoid BCE with logits — trained with tf.train.adam on the dense weights and, on the
 * embedding matrix, tf.train.adam or Adagrad written in TF.js ops with ours (PyTorch's) update,
 * accum += g², w −= lr·g / (√accum + 1e-10), accumulator from 0 — tf.train.adagrad puts its
 * epsilon 1e-7 inside the square root, which shrinks the first updates of small gradients ~30×
 * and changed the AUC after 4 steps by 0.026. TF.js has no sparse optimizers, so its embedding
 * matrix gets a dense update of all R × D entries every step; ours updates only the rows a batch
 * touched. For Adagrad that is the same update (a zero gradient moves neither weight nor
 * accumulator); for Adam it is not (untouched rows keep moving on their moments).
 * Bag features (list columns such as clicks' `history`) are pooled as ours pools them: each
 * (row, bag) list of embedding rows gathered from the same matrix, summed per bag with
 * tf.unsortedSegmentSum and divided by its item count for 'mean' (an empty bag gives zeros), the
 * K pooled vectors placed after the S sparse embeddings, before the dense inputs.
 * Starts from our seeded initial weights (dense kernels transposed) so both sides begin identically.
 */
import * as tf from '@tensorflow/tfjs-core'
import '@tensorflow/tfjs-backend-webgpu'
import * as tfl from '@tensorflow/tfjs-layers'
import { bagCount, checkBags, poolingCodes } from '../src/models/recsys/bags.ts'
import { crossOf, denseTensors, inputWidth } from '../src/models/recsys/layout.ts'
import type { ModelBatch, ModelShape, ModelWeights } from '../src/models/recsys/types.ts'
import { transpose } from './recsys-rows.ts'

/** Optimizers of the TF.js side: Adam at `lr` on the dense weights, `embedding` at `embeddingLr` on the embedding matrix. */
export interface TfOptimizers {
  lr: number
  embedding: 'adam' | 'adagrad'
  embeddingLr: number
}

/** A TF.js recommender ready to train. */
export interface TfRecsys {
  /** One optimizer step on `batch`; resolves when its loss (mean BCE) is read back. */
  step(batch: ModelBatch): Promise<number>
  /** Sigmoid probabilities of `batch`, f32 [B]. */
  predict(batch: ModelBatch): Promise<Float32Array>
  /** TF.js backend actually in use (must be 'webgpu'). */
  backend: string
  dispose(): void
}

/** Switches TF.js to WebGPU (throws when it cannot) and builds the model from `init`. */
export async function createTfRecsys(shape: ModelShape, init: ModelWeights, o: TfOptimizers): Promise<TfRecsys> {
  if (!(await tf.setBackend('webgpu'))) throw new Error('TF.js: the webgpu backend did not initialise')
  await tf.ready()
  if (crossOf(shape).layers > 0)
    throw new Error('TF.js peer: the recsys bench compares MLP models only (no cross layers)')
  const emb = tf.variable(tf.tensor2d(init.embeddings, [shape.totalRows, shape.dim]), true)
  const mlp = buildMlp(shape)
  mlp.setWeights(initialTensors(shape, init))
  const denseOpt = tf.train.adam(o.lr)
  const embOpt = o.embedding === 'adagrad' ? exactAdagrad(emb, o.embeddingLr) : tf.train.adam(o.embeddingLr)
  const K = bagCount(shape),
    pooling = poolingCodes(shape)
  /** The batch's index tensors: sparse rows, and with bags the item rows, their bag slot (b·K + k) and each slot's scale. */
  const indices = (b: ModelBatch): tf.Tensor[] => {
    const rows = tf.tensor1d(Int32Array.from(b.rows), 'int32')
    if (K === 0) return [rows]
    checkBags(b, K)
    const offsets = b.bagOffsets!,
      slots = new Int32Array(b.bagRows!.length),
      scale = new Float32Array(b.n * K)
    for (let j = 0; j < b.n * K; j++) {
      slots.fill(j, offsets[j], offsets[j + 1])
      const items = offsets[j + 1] - offsets[j]
      scale[j] = pooling[j % K] === 1 && items > 0 ? 1 / items : 1
    }
    return [
      rows,
      tf.tensor1d(Int32Array.from(b.bagRows!), 'int32'),
      tf.tensor1d(slots, 'int32'),
      tf.tensor2d(scale, [b.n * K, 1]),
    ]
  }
  /** The MLP input [B × C0]: S sparse embeddings, K pooled bags, the dense inputs. */
  const input = (b: ModelBatch, ix: tf.Tensor[], dense: tf.Tensor): tf.Tensor => {
    const parts = [tf.reshape(tf.gather(emb, ix[0]), [b.n, shape.sparse * shape.dim])]
    if (K > 0) {
      const sums = tf.unsortedSegmentSum(tf.gather(emb, ix[1]), ix[2] as tf.Tensor1D, b.n * K)
      parts.push(tf.reshape(tf.mul(sums, ix[3]), [b.n, K * shape.dim]))
    }
    return tf.concat([...parts, dense], 1)
  }
  async function step(b: ModelBatch): Promise<number> {
    const ix = indices(b),
      dense = tf.tensor2d(b.dense, [b.n, shape.dense]),
      labels = tf.tensor2d(b.labels, [b.n, 1])
    const { value: loss, grads } = tf.variableGrads(
      () =>
        tf.losses.sigmoidCrossEntropy(
          labels,
          mlp.apply(input(b, ix, dense), { training: true }) as tf.Tensor,
        ) as tf.Scalar,
    )
    const named = Object.entries(grads).map(([name, tensor]) => ({ name, tensor }))
    denseOpt.applyGradients(named.filter(g => g.name !== emb.name))
    embOpt.applyGradients(named.filter(g => g.name === emb.name))
    const value = (await loss.data())[0]
    tf.dispose([...ix, dense, labels, loss, ...Object.values(grads)])
    return value
  }
  async function predict(b: ModelBatch): Promise<Float32Array> {
    const ix = indices(b),
      dense = tf.tensor2d(b.dense, [b.n, shape.dense])
    const p = tf.tidy(() => tf.sigmoid(mlp.predict(input(b, ix, dense)) as tf.Tensor))
    const out = (await p.data()) as Float32Array
    tf.dispose([...ix, dense, p])
    return out
  }
  return {
    step,
    predict,
    backend: tf.getBackend(),
    dispose: () => {
      mlp.dispose()
      emb.dispose()
      denseOpt.dispose()
      embOpt.dispose()
    },
  }
}

/** Adagrad as ours (adagrad.ref.ts) on one variable, with the optimizer methods the step uses. */
function exactAdagrad(
  v: tf.Variable,
  lr: number,
): { applyGradients(g: Array<{ name: string; tensor: tf.Tensor }>): void; dispose(): void } {
  const accum = tf.variable(tf.zerosLike(v), false)
  return {
    applyGradients(g) {
      tf.tidy(() => {
        const grad = g[0].tensor
        accum.assign(tf.add(accum, tf.square(grad)))
        v.assign(tf.sub(v, tf.div(tf.mul(grad, lr), tf.add(tf.sqrt(accum), 1e-10))))
      })
    },
    dispose: () => accum.dispose(),
  }
}

/** The MLP on the concatenated input [B × C0]: Dense(relu) per hidden layer → Dense(1) logit. */
function buildMlp(shape: ModelShape): tfl.LayersModel {
  const x = tfl.input({ shape: [inputWidth(shape)], name: 'x0' })
  let h = x
  for (const units of shape.layers) h = tfl.layers.dense({ units, activation: 'relu' }).apply(h) as tfl.SymbolicTensor
  const logit = tfl.layers.dense({ units: 1 }).apply(h) as tfl.SymbolicTensor
  return tfl.model({ inputs: x, outputs: logit })
}

/** Our initial dense weights in TF.js order: kernel [C × OC] and bias per layer. */
function initialTensors(shape: ModelShape, w: ModelWeights): tf.Tensor[] {
  return denseTensors(shape).map((t, i) =>
    t.cols === 1 ? tf.tensor1d(w.dense[i]) : tf.tensor2d(transpose(w.dense[i], t.rows, t.cols), [t.cols, t.rows]),
  )
}
