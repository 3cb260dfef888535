/**
 * The TF.js peer of the `recsys` suite (bench-only devDependency): the same architecture as our
 * recommender — one Embedding over the global row index (all S tables in one [R × D] matrix, as
 * ours), flattened and concatenated with the dense inputs, Dense(relu) per hidden layer, Dense(1)
 * logit, sigmoid BCE with logits — trained with tf.train.adam on the dense weights and, on the
 * embedding matrix, tf.train.adam or Adagrad written in TF.js ops with ours (PyTorch's) update,
 * accum += g², w −= lr·g / (√accum + 1e-10), accumulator from 0 — tf.train.adagrad puts its
 * epsilon 1e-7 inside the square root, which shrinks the first updates of small gradients ~30×
 * and changed the AUC after 4 steps by 0.026. TF.js has no sparse optimizers, so its embedding
 * matrix gets a dense update of all R × D entries every step; ours updates only the rows a batch
 * touched. For Adagrad that is the same update (a zero gradient moves neither weight nor
 * accumulator); for Adam it is not (untouched rows keep moving on their moments).
 * Starts from our seeded initial weights (dense kernels transposed) so both sides begin identically.
 */
import * as tf from '@tensorflow/tfjs-core'
import '@tensorflow/tfjs-backend-webgpu'
import * as tfl from '@tensorflow/tfjs-layers'
import { denseTensors } from '../src/models/recsys/layout.ts'
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
  const model = buildModel(shape)
  model.setWeights(initialTensors(shape, init))
  const embName = model.getLayer('emb').trainableWeights[0].name
  const denseOpt = tf.train.adam(o.lr)
  const embOpt =
    o.embedding === 'adagrad'
      ? exactAdagrad(model.getLayer('emb').trainableWeights[0].read() as tf.Variable, o.embeddingLr)
      : tf.train.adam(o.embeddingLr)
  const inputs = (b: ModelBatch): tf.Tensor[] => [
    tf.tensor2d(Int32Array.from(b.rows), [b.n, shape.sparse], 'int32'),
    tf.tensor2d(b.dense, [b.n, shape.dense]),
  ]
  async function step(b: ModelBatch): Promise<number> {
    const [x, labels] = [inputs(b), tf.tensor2d(b.labels, [b.n, 1])]
    const { value: loss, grads } = tf.variableGrads(
      () => tf.losses.sigmoidCrossEntropy(labels, model.apply(x, { training: true }) as tf.Tensor) as tf.Scalar,
    )
    const named = Object.entries(grads).map(([name, tensor]) => ({ name, tensor }))
    denseOpt.applyGradients(named.filter(g => g.name !== embName))
    embOpt.applyGradients(named.filter(g => g.name === embName))
    const value = (await loss.data())[0]
    tf.dispose([...x, labels, loss, ...Object.values(grads)])
    return value
  }
  async function predict(b: ModelBatch): Promise<Float32Array> {
    const x = inputs(b)
    const p = tf.tidy(() => tf.sigmoid(model.predict(x) as tf.Tensor))
    const out = (await p.data()) as Float32Array
    tf.dispose([...x, p])
    return out
  }
  return {
    step,
    predict,
    backend: tf.getBackend(),
    dispose: () => {
      model.dispose()
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

/** rows int32 [B × S] → Embedding(R, D) → flatten ⊕ dense [B × Cd] → Dense(relu)… → Dense(1). */
function buildModel(shape: ModelShape): tfl.LayersModel {
  const rows = tfl.input({ shape: [shape.sparse], dtype: 'int32', name: 'rows' })
  const dense = tfl.input({ shape: [shape.dense], name: 'dense' })
  const emb = tfl.layers
    .embedding({ inputDim: shape.totalRows, outputDim: shape.dim, name: 'emb' })
    .apply(rows) as tfl.SymbolicTensor
  let h = tfl.layers
    .concatenate()
    .apply([tfl.layers.flatten().apply(emb) as tfl.SymbolicTensor, dense]) as tfl.SymbolicTensor
  for (const units of shape.layers) h = tfl.layers.dense({ units, activation: 'relu' }).apply(h) as tfl.SymbolicTensor
  const logit = tfl.layers.dense({ units: 1 }).apply(h) as tfl.SymbolicTensor
  return tfl.model({ inputs: [rows, dense], outputs: logit })
}

/** Our initial weights in TF.js order: embeddings, then kernel [C × OC] and bias per layer. */
function initialTensors(shape: ModelShape, w: ModelWeights): tf.Tensor[] {
  const out: tf.Tensor[] = [tf.tensor2d(w.embeddings, [shape.totalRows, shape.dim])]
  denseTensors(shape).forEach((t, i) => {
    out.push(
      t.cols === 1 ? tf.tensor1d(w.dense[i]) : tf.tensor2d(transpose(w.dense[i], t.rows, t.cols), [t.cols, t.rows]),
    )
  })
  return out
}
