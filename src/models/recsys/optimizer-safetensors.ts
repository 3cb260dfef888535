/**
 * The recommender's optimizer state as safetensors (`optimizer.safetensors`), so a PyTorch
 * continuation (src/continue/torch-ddp.ts) goes on with our Adam moments, Adagrad accumulators and
 * steps instead of restarting them. Tensor names are the parameter's state_dict name (model.safetensors,
 * safetensors.ts) + the state key of torch.optim: per dense tensor P `P.exp_avg`, `P.exp_avg_sq`
 * (f32, P's shape) and `P.step` (I64 scalar: updates applied, Adam's next t is step + 1); per
 * embedding table T (`emb.{i}.weight`, `bag.{k}.weight`, rows split like the weights) Adagrad's
 * `T.sum` [buckets × D], or row-wise Adam's `T.exp_avg`, `T.exp_avg_sq` [buckets × D] and
 * `T.step` I64 [buckets] (each row's own update count). __metadata__ `optimizer` is the JSON of
 * OptimizerMeta: the update's hyperparameters and the lr schedule, a pure function of the step.
 * D = embedding dim.
 */
import type { Checkpoint } from './checkpoint.ts'
import { crossOf, denseTensors } from './layout.ts'
import { ADAGRAD_EPS } from './optimizer.ts'
import { exportTensors, type SafetensorsTensor, torchName, writeSafetensors } from './safetensors.ts'
import type { RecsysParams } from './types.ts'

/** The optimizer's description in optimizer.safetensors' metadata (and what the PyTorch job reads). */
export interface OptimizerMeta {
  format: 'snaptrain-recsys-optimizer'
  version: 1
  /** Updates applied so far (the global step; the next update is step + 1). */
  step: number
  /** Dense tensors (cross + MLP): Adam, or AdamW with decoupled weight_decay. */
  dense: {
    optimizer: RecsysParams['optimizer']
    lr: number
    beta1: number
    beta2: number
    eps: number
    weight_decay: number
  }
  /** Embedding rows a batch touched: Adagrad (eps 1e-10, accumulators from 0) or row-wise Adam (per-row step). */
  embedding: {
    optimizer: RecsysParams['embedding_optimizer']
    lr: number
    eps: number
    beta1: number
    beta2: number
  }
  /** lr of update s (0-based): optimizer.ts stepLr, the embedding lr scaled alike (lr·embedding_lr/lr). */
  schedule: {
    kind: RecsysParams['schedule']
    warmup_steps: number
    lr_scaling: RecsysParams['lr_scaling']
    rule: string
  }
  /** In words, for a reader of the file. */
  update: string
}

/** The metadata of `ck`'s optimizer. */
export function optimizerMeta(ck: Checkpoint): OptimizerMeta {
  const p = ck.params
  const adagrad = p.embedding_optimizer === 'adagrad'
  return {
    format: 'snaptrain-recsys-optimizer',
    version: 1,
    step: ck.state.opt.step,
    dense: {
      optimizer: p.optimizer,
      lr: p.lr,
      beta1: p.beta1,
      beta2: p.beta2,
      eps: p.eps,
      weight_decay: p.optimizer === 'adamw' ? p.weight_decay : 0,
    },
    embedding: {
      optimizer: p.embedding_optimizer,
      lr: p.embedding_lr,
      eps: adagrad ? ADAGRAD_EPS : p.eps,
      beta1: p.beta1,
      beta2: p.beta2,
    },
    schedule: {
      kind: p.schedule,
      warmup_steps: p.warmup_steps,
      lr_scaling: p.lr_scaling,
      rule:
        'step s < warmup_steps: lr·(s+1)/warmup_steps; then constant lr, cosine from lr to 0 at step total−1 ' +
        '(total = max(total_steps, warmup_steps+1)), or step: lr·0.5^floor((s−warmup)/max(1, floor(total_steps/4))); ' +
        'total_steps = epochs × ceil(table rows / batch_size)',
    },
    update:
      'dense: p ← p·(1 − lr·wd); m ← β1·m + (1−β1)·g; v ← β2·v + (1−β2)·g²; p ← p − lr/(1−β1^t)·m/(√v/√(1−β2^t) + eps), t = step + 1; ' +
      'embeddings, only the rows the batch touched: adagrad sum ← sum + g²; w ← w − lr·g/(√sum + 1e-10); ' +
      'rowwise_adam: the dense update without decay, t = that row’s step + 1; ' +
      'g = gradient of the mean loss over the global batch',
  }
}

/** The optimizer state of `ck` as named tensors (module comment), dense tensors first, then each embedding table. */
export function optimizerTensors(ck: Checkpoint): SafetensorsTensor[] {
  const { shape } = ck
  const o = ck.state.opt
  const rank = crossOf(shape).rank
  const out: SafetensorsTensor[] = []
  denseTensors(shape).forEach((t, j) => {
    const name = torchName(t.name, rank)
    const dims = /^b\d+$|\.b$/.test(t.name) ? [t.rows] : [t.rows, t.cols]
    out.push(
      { name: `${name}.exp_avg`, shape: dims, data: o.m[j] },
      { name: `${name}.exp_avg_sq`, shape: dims, data: o.v[j] },
      { name: `${name}.step`, shape: [], data: BigInt64Array.of(BigInt(o.step)) },
    )
  })
  const D = shape.dim
  const tables = [...ck.layout.sparse, ...(ck.layout.bags ?? [])]
  const weights = exportTensors(ck).slice(0, tables.length) // emb.{i}.weight, bag.{k}.weight in stack order
  tables.forEach((f, i) => {
    const { name } = weights[i]
    const rows = (a: Float32Array): Float32Array => a.subarray(f.tableOffset * D, (f.tableOffset + f.buckets) * D)
    if (o.accum) out.push({ name: `${name}.sum`, shape: [f.buckets, D], data: rows(o.accum) })
    if (o.embM && o.embV && o.rowStep) {
      const steps = BigInt64Array.from(o.rowStep.subarray(f.tableOffset, f.tableOffset + f.buckets), BigInt)
      out.push(
        { name: `${name}.exp_avg`, shape: [f.buckets, D], data: rows(o.embM) },
        { name: `${name}.exp_avg_sq`, shape: [f.buckets, D], data: rows(o.embV) },
        { name: `${name}.step`, shape: [f.buckets], data: steps },
      )
    }
  })
  return out
}

/** optimizer.safetensors of `ck`: the tensors of optimizerTensors, metadata `optimizer` = optimizerMeta's JSON. */
export function encodeOptimizerSafetensors(ck: Checkpoint): Uint8Array<ArrayBuffer> {
  return writeSafetensors(optimizerTensors(ck), { optimizer: JSON.stringify(optimizerMeta(ck)) })
}
