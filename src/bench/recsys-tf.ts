/**
 * The TF.js peer of the `recsys` suite (bench-only devDependency): the same architecture as our
 * recommender — one Embedding over the global row index (all S tables in one [R × D] matrix, as
 * ours), flattened and concatenated with the dense inputs, Dense(relu) per hidden layer, Dense(1)
 * logit, sigmoid BCE with logits — trained with tf.train.adam over every weight. TF.js has no
 * row-wise (lazy) Adam or sparse Adagrad, so its embedding matrix gets a dense Adam update of all
 * R × D entries every step; ours updates only the rows a batch touched. Starts from our seeded
 * initial weights (dense kernels transposed) so both sides begin identically.
 */
import * as tf from '@tensorflow/tfjs-core'
import '@tensorflow/tfjs-backend-webgpu'
import * as tfl from '@tensorflow/tfjs-layers'
import { denseTensors } from '../models/recsys/layout.ts'
import type { ModelBatch, ModelShape, ModelWeights } from '../models/recsys/types.ts'
import { transpose } from './recsys-rows.ts'

/** A TF.js recommender ready to train. */
export interface TfRecsys {
  /** One Adam step on `batch`; resolves when its loss (mean BCE) is read back. */
  step(batch: ModelBatch): Promise<number>
  /** Sigmoid probabilities of `batch`, f32 [B]. */
  predict(batch: ModelBatch): Promise<Float32Array>
  /** TF.js backend actually in use (must be 'webgpu'). */
  backend: string
  dispose(): void
}

/** Switches TF.js to WebGPU (throws when it cannot) and builds the model from `init`. */
export async function createTfRecsys(shape: ModelShape, init: ModelWeights, lr: number): Promise<TfRecsys> {
  if (!(await tf.setBackend('webgpu'))) throw new Error('TF.js: the webgpu backend did not initialise')
  await tf.ready()
  const model = buildModel(shape)
  model.setWeights(initialTensors(shape, init))
  const opt = tf.train.adam(lr)
  const inputs = (b: ModelBatch): tf.Tensor[] => [
    tf.tensor2d(Int32Array.from(b.rows), [b.n, shape.sparse], 'int32'), tf.tensor2d(b.dense, [b.n, shape.dense]),
  ]
  async function step(b: ModelBatch): Promise<number> {
    const [x, labels] = [inputs(b), tf.tensor2d(b.labels, [b.n, 1])]
    const loss = opt.minimize(() => tf.losses.sigmoidCrossEntropy(labels, model.apply(x, { training: true }) as tf.Tensor) as tf.Scalar, true)
    const value = (await loss!.data())[0]
    tf.dispose([...x, labels, loss!])
    return value
  }
  async function predict(b: ModelBatch): Promise<Float32Array> {
    const x = inputs(b)
    const p = tf.tidy(() => tf.sigmoid(model.predict(x) as tf.Tensor))
    const out = (await p.data()) as Float32Array
    tf.dispose([...x, p])
    return out
  }
  return { step, predict, backend: tf.getBackend(), dispose: () => { model.dispose(); opt.dispose() } }
}

/** rows int32 [B × S] → Embedding(R, D) → flatten ⊕ dense [B × Cd] → Dense(relu)… → Dense(1). */
function buildModel(shape: ModelShape): tfl.LayersModel {
  const rows = tfl.input({ shape: [shape.sparse], dtype: 'int32', name: 'rows' })
  const dense = tfl.input({ shape: [shape.dense], name: 'dense' })
  const emb = tfl.layers.embedding({ inputDim: shape.totalRows, outputDim: shape.dim, name: 'emb' }).apply(rows) as tfl.SymbolicTensor
  let h = tfl.layers.concatenate().apply([tfl.layers.flatten().apply(emb) as tfl.SymbolicTensor, dense]) as tfl.SymbolicTensor
  for (const units of shape.layers) h = tfl.layers.dense({ units, activation: 'relu' }).apply(h) as tfl.SymbolicTensor
  const logit = tfl.layers.dense({ units: 1 }).apply(h) as tfl.SymbolicTensor
  return tfl.model({ inputs: [rows, dense], outputs: logit })
}

/** Our initial weights in TF.js order: embeddings, then kernel [C × OC] and bias per layer. */
function initialTensors(shape: ModelShape, w: ModelWeights): tf.Tensor[] {
  const out: tf.Tensor[] = [tf.tensor2d(w.embeddings, [shape.totalRows, shape.dim])]
  denseTensors(shape).forEach((t, i) => {
    out.push(t.cols === 1 ? tf.tensor1d(w.dense[i]) : tf.tensor2d(transpose(w.dense[i], t.rows, t.cols), [t.cols, t.rows]))
  })
  return out
}
