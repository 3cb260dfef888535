/**
 * GPU buffers of the recommender, allocated once for batches of up to B rows: weights and
 * optimizer state, two sets of input buffers (double-buffered uploads), activations, gradients
 * and the loss history read back at metrics time. B = batch, S = sparse features, D = dim,
 * R = total embedding rows, Cd = dense inputs, K = bag features, P = B·S + bag items (lookup
 * positions), C0 = (S + K)·D + Cd, Kc = cross layers, r = cross rank.
 */
import { createBuffer } from '../../gpu/buffers.ts'
import { reduceSumScratch } from '../../kernels/recsys/reduce_sum.ts'
import { bagCount, poolingCodes } from './bags.ts'
import { crossOf, denseTensors, inputWidth, layerDims } from './layout.ts'
import type { ModelShape, RecsysParams } from './types.ts'

/** One set of per-batch inputs; `done` resolves when the last step that read it has finished. */
export interface InputSet {
  rows: GPUBuffer
  dense: GPUBuffer
  labels: GPUBuffer
  order: GPUBuffer
  segStart: GPUBuffer
  uniq: GPUBuffer
  /** With bags: u32 [item capacity] item rows and u32 [B·K + 1] offsets (absent without bags). */
  bagRows?: GPUBuffer
  bagOffsets?: GPUBuffer
  done: Promise<unknown>
}

/**
 * Buffers of the bag features (absent without any). The lookup-position buffers (each input
 * set's order / segStart / uniq / bagRows, and demb, dRows) hold B·S + `capacity` positions and
 * grow (growItemBuffers) when a batch brings more bag items.
 */
export interface BagBuffers {
  /** u32 [K], 1 = mean (bags.ts poolingCodes). */
  pooling: GPUBuffer
  /** f32 [B × K·D] pooled bags, then f32 [B × (S + K)·D] the sparse embeddings followed by them. */
  pooled: GPUBuffer
  lookups: GPUBuffer
  /** Bag items M the position buffers have room for. */
  capacity: number
}

/** Activations and scratch of the cross network (absent without one). */
export interface CrossBuffers {
  /** x_1 … x_Kc, f32 [B × C0] each (x_Kc is the MLP's input). */
  x: GPUBuffer[]
  /** z_k = W_k x_k, f32 [B × C0] each. */
  z: GPUBuffer[]
  /** Low rank: t_k = V_k x_k, f32 [B × r] each (empty at full rank). */
  t: GPUBuffer[]
  /** Backward scratch: dz f32 [B × C0], dt f32 [B × r], and ∂L/∂x0 f32 [B × C0] (what concat_backward reads). */
  dz: GPUBuffer
  dt: GPUBuffer
  dx0: GPUBuffer
}

/** Every buffer of the model. */
export interface ModelBuffers {
  emb: GPUBuffer
  accum?: GPUBuffer
  embM?: GPUBuffer
  embV?: GPUBuffer
  rowStep?: GPUBuffer
  /** Per dense tensor (layout order): weights, gradient, Adam m and v. */
  w: GPUBuffer[]
  g: GPUBuffer[]
  m: GPUBuffer[]
  v: GPUBuffer[]
  inputs: [InputSet, InputSet]
  embOut: GPUBuffer
  inp: GPUBuffer
  pre: GPUBuffer[]
  act: GPUBuffer[]
  loss: GPUBuffer
  probs: GPUBuffer
  dlogits: GPUBuffer
  /** Ping-pong gradients of hidden activations, f32 [B × max width]. */
  gradA: GPUBuffer
  gradB: GPUBuffer
  dinp0: GPUBuffer
  cross?: CrossBuffers
  bags?: BagBuffers
  /** f32 [P × D], P = B·S + bag item capacity: gradient of every lookup position. */
  demb: GPUBuffer
  dRows: GPUBuffer
  lossScratch: GPUBuffer[]
  lossSum: GPUBuffer
  /** f32 [min(eval_every, LOSS_HISTORY_MAX)]: one loss sum per step since the last read-back. */
  lossHistory: GPUBuffer
}

/** Bytes of each buffer that grows with B (for the limit check), by name. */
export function batchBufferBytes(shape: ModelShape, batch: number): Record<string, number> {
  const widest = Math.max(1, ...shape.layers)
  return {
    embOut: batch * shape.sparse * shape.dim * 4,
    lookups: batch * (shape.sparse + bagCount(shape)) * shape.dim * 4,
    inp: batch * inputWidth(shape) * 4,
    hidden: batch * widest * 4,
    dense: batch * shape.dense * 4,
    rows: (batch * shape.sparse + 1) * 4,
  }
}

/**
 * Throws RangeError when a buffer exceeds the device's binding or buffer size: naming batch_size
 * for batch buffers, buckets / embedding_dim for the tables.
 */
export function checkLimits(device: GPUDevice, shape: ModelShape, batch: number): void {
  const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize)
  const table = shape.totalRows * shape.dim * 4
  if (table > limit) {
    throw new RangeError(
      `embedding tables need ${table} bytes (R = ${shape.totalRows} rows × embedding_dim ${shape.dim} × 4), over this adapter's limit of ${limit} bytes per buffer; lower buckets or embedding_dim`,
    )
  }
  for (const [name, bytes] of Object.entries(batchBufferBytes(shape, batch))) {
    if (bytes > limit) {
      const most = Math.floor(batch * (limit / bytes))
      throw new RangeError(
        `batch_size ${batch} needs a ${bytes}-byte '${name}' buffer, over this adapter's limit of ${limit} bytes per buffer (maxStorageBufferBindingSize); use batch_size ≤ ${most}`,
      )
    }
  }
}

/** Allocates every buffer for batches of up to `batch` rows (contents zero). */
export function createModelBuffers(device: GPUDevice, shape: ModelShape, p: RecsysParams, batch: number): ModelBuffers {
  checkLimits(device, shape, batch)
  const f32 = (n: number, label: string): GPUBuffer => createBuffer(device, n * 4, undefined, label)
  const B = batch,
    S = shape.sparse,
    D = shape.dim,
    RD = shape.totalRows * D
  const tensors = denseTensors(shape)
  const dims = layerDims(shape)
  const widest = Math.max(1, ...shape.layers) // hidden activations and their gradients; C0 has its own
  const K = bagCount(shape)
  const items = K > 0 ? B * K : 0 // initial bag item capacity: one item per bag, grown on demand
  const P = B * S + items
  const input = (k: number): InputSet => ({
    rows: f32(B * S, `rows${k}`),
    dense: f32(B * shape.dense, `dense${k}`),
    labels: f32(B, `labels${k}`),
    order: f32(P, `order${k}`),
    segStart: f32(P + 1, `segStart${k}`),
    uniq: f32(P, `uniq${k}`),
    ...(K > 0 ? { bagRows: f32(items, `bagRows${k}`), bagOffsets: f32(B * K + 1, `bagOffsets${k}`) } : {}),
    done: Promise.resolve(),
  })
  const rowwise = p.embedding_optimizer === 'rowwise_adam'
  return {
    emb: f32(RD, 'embeddings'),
    accum: rowwise ? undefined : f32(RD, 'adagrad accum'),
    embM: rowwise ? f32(RD, 'rowwise m') : undefined,
    embV: rowwise ? f32(RD, 'rowwise v') : undefined,
    rowStep: rowwise ? f32(shape.totalRows, 'rowwise step') : undefined,
    w: tensors.map(t => f32(t.length, t.name)),
    g: tensors.map(t => f32(t.length, `d${t.name}`)),
    m: tensors.map(t => f32(t.length, `m.${t.name}`)),
    v: tensors.map(t => f32(t.length, `v.${t.name}`)),
    inputs: [input(0), input(1)],
    embOut: f32(B * S * D, 'embOut'),
    inp: f32(B * inputWidth(shape), 'inp'),
    pre: dims.map(([, oc], l) => f32(B * oc, `pre${l}`)),
    act: dims.map(([, oc], l) => f32(B * oc, `act${l}`)),
    loss: f32(B, 'loss'),
    probs: f32(B, 'probs'),
    dlogits: f32(B, 'dlogits'),
    gradA: f32(B * widest, 'gradA'),
    gradB: f32(B * widest, 'gradB'),
    dinp0: f32(B * inputWidth(shape), 'dinp0'),
    cross: crossBuffers(shape, B, f32),
    bags: K > 0 ? bagBuffers(device, shape, B, items, f32) : undefined,
    demb: f32(P * D, 'demb'),
    dRows: f32(P * D, 'dRows'),
    lossScratch: reduceSumScratch(B).map((n, i) => f32(n, `loss scratch ${i}`)),
    lossSum: f32(1, 'loss sum'),
    lossHistory: f32(lossHistorySlots(p), 'loss history'),
  }
}

function crossBuffers(
  shape: ModelShape,
  B: number,
  f32: (n: number, label: string) => GPUBuffer,
): CrossBuffers | undefined {
  const { layers, rank } = crossOf(shape)
  if (layers === 0) return undefined
  const c0 = inputWidth(shape)
  const each = (n: number, what: string): GPUBuffer[] => Array.from({ length: layers }, (_, k) => f32(n, `${what}${k}`))
  return {
    x: each(B * c0, 'cross x'),
    z: each(B * c0, 'cross z'),
    t: rank === 0 ? [] : each(B * rank, 'cross t'),
    dz: f32(B * c0, 'cross dz'),
    dt: f32(B * Math.max(rank, 1), 'cross dt'),
    dx0: f32(B * c0, 'cross dx0'),
  }
}

function bagBuffers(
  device: GPUDevice,
  shape: ModelShape,
  B: number,
  capacity: number,
  f32: (n: number, label: string) => GPUBuffer,
): BagBuffers {
  const K = bagCount(shape),
    D = shape.dim
  const pooling = f32(K, 'bag pooling')
  const codes = poolingCodes(shape)
  device.queue.writeBuffer(pooling, 0, codes.buffer, codes.byteOffset, codes.byteLength)
  return {
    pooling,
    pooled: f32(B * K * D, 'pooled bags'),
    lookups: f32(B * (shape.sparse + K) * D, 'lookups'),
    capacity,
  }
}

/**
 * Regrows the lookup-position buffers for `items` bag items per batch (at least doubling). The
 * caller waits until no submitted step uses the input sets; demb and dRows may still be read by
 * queued work, which keeps the destroyed buffers alive until it completes.
 */
export function growItemBuffers(
  device: GPUDevice,
  b: ModelBuffers,
  shape: ModelShape,
  batch: number,
  items: number,
): void {
  const bags = b.bags
  if (!bags || items <= bags.capacity) return
  const limit = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize)
  const need = (batch * shape.sparse + items) * shape.dim * 4
  if (need > limit)
    throw new RangeError(
      `a batch with ${items} bag items needs a ${need}-byte 'demb' buffer, over this adapter's limit of ${limit} bytes per buffer; lower batch_size or embedding_dim`,
    )
  bags.capacity = Math.min(
    Math.max(items, 2 * bags.capacity),
    Math.floor(limit / (shape.dim * 4)) - batch * shape.sparse,
  )
  const P = batch * shape.sparse + bags.capacity
  const f32 = (n: number, label: string): GPUBuffer => createBuffer(device, n * 4, undefined, label)
  const swap = (old: GPUBuffer, n: number): GPUBuffer => {
    const label = old.label
    old.destroy()
    return f32(n, label)
  }
  for (const set of b.inputs) {
    set.order = swap(set.order, P)
    set.segStart = swap(set.segStart, P + 1)
    set.uniq = swap(set.uniq, P)
    set.bagRows = swap(set.bagRows!, bags.capacity)
  }
  b.demb = swap(b.demb, P * shape.dim)
  b.dRows = swap(b.dRows, P * shape.dim)
}

/** Destroys every buffer. */
export function destroyModelBuffers(b: ModelBuffers): void {
  const all: (GPUBuffer | undefined)[] = [
    b.emb,
    b.accum,
    b.embM,
    b.embV,
    b.rowStep,
    ...b.w,
    ...b.g,
    ...b.m,
    ...b.v,
    b.embOut,
    b.inp,
    ...b.pre,
    ...b.act,
    b.loss,
    b.probs,
    b.dlogits,
    b.gradA,
    b.gradB,
    b.dinp0,
    ...(b.bags ? [b.bags.pooling, b.bags.pooled, b.bags.lookups] : []),
    ...(b.cross ? [...b.cross.x, ...b.cross.z, ...b.cross.t, b.cross.dz, b.cross.dt, b.cross.dx0] : []),
    b.demb,
    b.dRows,
    ...b.lossScratch,
    b.lossSum,
    b.lossHistory,
    ...b.inputs.flatMap(s => [s.rows, s.dense, s.labels, s.order, s.segStart, s.uniq, s.bagRows, s.bagOffsets]),
  ]
  all.forEach(x => x?.destroy())
}

/**
 * Extra buffers of a model used as a rank (ranks.ts RankModel): a MAP_READ staging buffer
 * for the local gradients (loss sum f32, then the dense gradients f32 [P] in layout order, then
 * dRows f32 [U × D]) and the combined touched rows (u32 [U]) and row gradients (f32 [U × D]),
 * which grow when the union of the ranks' rows outgrows them. P = dense parameters.
 */
export class RankBuffers {
  private readonly staging: GPUBuffer
  private readonly denseBytes: number
  private uniq?: GPUBuffer
  private dRows?: GPUBuffer
  /** Rows the combined buffers hold. */
  private capacity = 0

  constructor(
    private readonly device: GPUDevice,
    b: ModelBuffers,
  ) {
    this.denseBytes = b.g.reduce((s, g) => s + g.size, 0)
    this.staging = device.createBuffer({
      label: 'rank gradients',
      size: 4 + this.denseBytes + b.dRows.size,
      usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
    })
  }

  /** Copies loss sum, dense gradients and the first `rowFloats` of dRows into the staging buffer. */
  encodeReadback(enc: GPUCommandEncoder, b: ModelBuffers, rowFloats: number): void {
    enc.copyBufferToBuffer(b.lossSum, 0, this.staging, 0, 4)
    let at = 4
    for (const g of b.g) {
      enc.copyBufferToBuffer(g, 0, this.staging, at, g.size)
      at += g.size
    }
    if (rowFloats > 0) enc.copyBufferToBuffer(b.dRows, 0, this.staging, at, rowFloats * 4)
  }

  /** Maps the staging buffer (after the submit that filled it) and copies the values out. */
  async read(
    rowFloats: number,
  ): Promise<{ lossSum: number; dense: Float32Array<ArrayBuffer>; dRows: Float32Array<ArrayBuffer> }> {
    await this.staging.mapAsync(GPUMapMode.READ, 0, 4 + this.denseBytes + rowFloats * 4)
    try {
      const all = new Float32Array(this.staging.getMappedRange(0, 4 + this.denseBytes + rowFloats * 4))
      const P = this.denseBytes / 4
      return { lossSum: all[0], dense: all.slice(1, 1 + P), dRows: all.slice(1 + P, 1 + P + rowFloats) }
    } finally {
      this.staging.unmap()
    }
  }

  /** Writes combined gradients: dense into b.g (layout order), rows and row gradients into the combined buffers. */
  uploadCombined(
    b: ModelBuffers,
    g: { dense: Float32Array; rows: Uint32Array; dRows: Float32Array },
    dim: number,
  ): { uniq: GPUBuffer; dRows: GPUBuffer } {
    const q = this.device.queue
    if (g.dense.byteLength !== this.denseBytes)
      throw new RangeError(`combined dense gradients: ${g.dense.length} values, the model has ${this.denseBytes / 4}`)
    let at = 0
    for (const buf of b.g) {
      q.writeBuffer(buf, 0, g.dense.buffer, g.dense.byteOffset + at, buf.size)
      at += buf.size
    }
    this.reserve(g.rows.length, dim)
    if (g.rows.length) {
      q.writeBuffer(this.uniq!, 0, g.rows.buffer, g.rows.byteOffset, g.rows.byteLength)
      q.writeBuffer(this.dRows!, 0, g.dRows.buffer, g.dRows.byteOffset, g.dRows.byteLength)
    }
    return { uniq: this.uniq!, dRows: this.dRows! }
  }

  destroy(): void {
    this.staging.destroy()
    this.uniq?.destroy()
    this.dRows?.destroy()
  }

  /** Grows the combined buffers to at least `rows` rows (doubling; queued work keeps the old ones alive). */
  private reserve(rows: number, dim: number): void {
    if (rows <= this.capacity && this.uniq) return
    this.uniq?.destroy()
    this.dRows?.destroy()
    this.capacity = Math.max(rows, 2 * this.capacity, 1)
    this.uniq = createBuffer(this.device, this.capacity * 4, undefined, 'combined rows')
    this.dRows = createBuffer(this.device, this.capacity * dim * 4, undefined, 'combined dRows')
  }
}

/**
 * Most loss sums kept on the device between read-backs: a huge eval_every (a sweep sets it past
 * an epoch) would otherwise ask for a buffer the adapter refuses; past this many steps the model
 * drains the sums early, which costs one read-back per LOSS_HISTORY_MAX steps.
 */
export const LOSS_HISTORY_MAX = 4096

/** Slots of the loss-history buffer for `p`. */
export function lossHistorySlots(p: { eval_every: number }): number {
  return Math.min(p.eval_every, LOSS_HISTORY_MAX)
}
