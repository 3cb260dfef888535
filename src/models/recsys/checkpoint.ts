/**
 * Checkpoints: weights + optimizer state + loop state (with the loader cursor) in one binary file.
 * Layout (all little-endian):
 *   bytes 0–7   magic "SNAPRCK1"
 *   bytes 8–11  u32 H = header length in bytes
 *   bytes 12…   H bytes of UTF-8 JSON: CheckpointHeader (format, version, shape, params, layout,
 *               loop, optimizerStep, tensors[{ name, dtype 'f32' | 'u32', length, offset }])
 *   then zero padding to a multiple of 8; tensor data follows, `offset` counted from there,
 *   every tensor 8-byte aligned, raw elements in order.
 * Tensor names: embeddings [R×D]; w{l}, b{l} (layout.ts order); m.w{l}…, v.w{l}… (Adam moments);
 * adagrad.accum [R×D] or rowwise.m, rowwise.v [R×D] and rowwise.step u32 [R]; with restore_best
 * a mid-run checkpoint also holds the best evaluation's weights as best.embeddings, best.w{l},
 * best.b{l} (so the resumed run can still end on them).
 */
import type { ModelState, RecsysBackend } from './backend.ts'
import type { ModelWeights } from './types.ts'
import { checkShape, denseTensors } from './layout.ts'
import type { LoopState } from './train-loop.ts'
import type { FeatureLayout, ModelShape, OptimizerState, RecsysParams } from './types.ts'

/** The first 8 bytes of every checkpoint (a recommender's model file). */
export const MAGIC = 'SNAPRCK1'
const FORMAT = 'snaptrain-recsys-checkpoint'
const VERSION = 1

/** Everything needed to continue a run. */
export interface Checkpoint {
  shape: ModelShape
  params: RecsysParams
  layout: FeatureLayout
  loop: LoopState
  state: ModelState
  /** Weights kept by restore_best (backend.keptWeights()), absent when none were kept. */
  best?: ModelWeights
}

/** One stored tensor. */
export interface TensorEntry {
  name: string
  dtype: 'f32' | 'u32'
  length: number
  offset: number
}

/** The JSON header. */
export interface CheckpointHeader extends Omit<Checkpoint, 'state' | 'best'> {
  format: string
  version: number
  optimizerStep: number
  tensors: TensorEntry[]
}

/** Named tensors of a state, in file order. */
export function stateTensors(shape: ModelShape, s: ModelState): [string, Float32Array | Uint32Array][] {
  const names = denseTensors(shape).map(t => t.name)
  const o = s.opt
  const out: [string, Float32Array | Uint32Array][] = [['embeddings', s.weights.embeddings]]
  names.forEach((n, i) => out.push([n, s.weights.dense[i]]))
  names.forEach((n, i) => out.push([`m.${n}`, o.m[i]]))
  names.forEach((n, i) => out.push([`v.${n}`, o.v[i]]))
  if (o.accum) out.push(['adagrad.accum', o.accum])
  if (o.embM) out.push(['rowwise.m', o.embM], ['rowwise.v', o.embV!], ['rowwise.step', o.rowStep!])
  return out
}

/** Serialises `ck` (see the layout above). */
export function encodeCheckpoint(ck: Checkpoint): Uint8Array<ArrayBuffer> {
  assertLittleEndian()
  const tensors: TensorEntry[] = []
  let offset = 0
  const arrays = [...stateTensors(ck.shape, ck.state), ...bestTensors(ck.shape, ck.best)]
  for (const [name, a] of arrays) {
    tensors.push({ name, dtype: a instanceof Uint32Array ? 'u32' : 'f32', length: a.length, offset })
    offset += align8(a.byteLength)
  }
  const { state, best: _best, ...rest } = ck
  const header: CheckpointHeader = { format: FORMAT, version: VERSION, ...rest, optimizerStep: state.opt.step, tensors }
  const json = new TextEncoder().encode(JSON.stringify(header))
  const dataStart = align8(12 + json.length)
  const bytes = new Uint8Array(dataStart + offset)
  bytes.set(new TextEncoder().encode(MAGIC), 0)
  new DataView(bytes.buffer).setUint32(8, json.length, true)
  bytes.set(json, 12)
  arrays.forEach(([, a], i) =>
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), dataStart + tensors[i].offset),
  )
  return bytes
}

/**
 * A checkpoint of `backend` now: its state plus the weights restore_best kept (so a run resumed
 * from it can still end on its best evaluation). `rest` = shape, params, layout, loop state.
 */
export async function captureCheckpoint(
  backend: RecsysBackend,
  rest: Omit<Checkpoint, 'state' | 'best'>,
): Promise<Checkpoint> {
  const best = await backend.keptWeights?.()
  return { ...rest, state: await backend.exportState(), ...(best ? { best } : {}) }
}

/** Puts a checkpoint's state (and kept best weights, if any) into `backend` before a resumed trainLoop. */
export async function restoreCheckpoint(backend: RecsysBackend, ck: Checkpoint): Promise<void> {
  await backend.importState(ck.state)
  if (ck.best) {
    if (!backend.keepWeights)
      throw new TypeError(
        'restoreCheckpoint: the checkpoint holds restore_best weights but the backend cannot keep weights',
      )
    await backend.keepWeights(ck.best)
  }
}

/** Parses a checkpoint; throws naming `source` and the problem (magic, header, missing or short tensor). */
export function decodeCheckpoint(bytes: Uint8Array, source = 'checkpoint'): Checkpoint {
  assertLittleEndian()
  const fail = (why: string): never => {
    throw new Error(`${source}: not a recsys checkpoint: ${why}`)
  }
  if (bytes.length < 12 || new TextDecoder().decode(bytes.subarray(0, 8)) !== MAGIC) fail(`missing magic "${MAGIC}"`)
  const h = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(8, true)
  if (12 + h > bytes.length) fail(`header length ${h} runs past the end (${bytes.length} bytes)`)
  let header: CheckpointHeader
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(12, 12 + h)))
  } catch (e) {
    return fail(`header is not JSON (${(e as Error).message})`)
  }
  if (!header || typeof header !== 'object') return fail('header is not a JSON object')
  if (header.format !== FORMAT || header.version !== VERSION)
    fail(`format ${header.format} version ${header.version}, expected ${FORMAT} ${VERSION}`)
  checkHeader(header, fail)
  const dataStart = align8(12 + h)
  const byName = new Map<string, Float32Array | Uint32Array>()
  for (const t of header.tensors) {
    const start = dataStart + t.offset,
      end = start + t.length * 4
    if (end > bytes.length)
      fail(`tensor ${t.name} (${t.length} × ${t.dtype} at ${start}) runs past the end (${bytes.length} bytes)`)
    const copy = new Uint8Array(bytes.subarray(start, end)).buffer // a fresh copy: a Node Buffer's slice is a view into its shared pool
    byName.set(t.name, t.dtype === 'u32' ? new Uint32Array(copy) : new Float32Array(copy))
  }
  const { format: _f, version: _v, tensors: _t, optimizerStep, ...rest } = header
  const best = byName.has('best.embeddings') ? weightsFrom(header.shape, byName, 'best.', fail) : undefined
  return { ...rest, state: stateFrom(header.shape, byName, optimizerStep, fail), ...(best ? { best } : {}) }
}

/**
 * The header's shape and tensor table are what the decoder trusts to slice the file: every count a
 * whole number in range, every tensor entry well formed and named once, before anything is read.
 */
function checkHeader(header: CheckpointHeader, fail: (why: string) => never): void {
  if (!header.shape || typeof header.shape !== 'object' || !Array.isArray(header.shape.layers))
    fail('header.shape is missing')
  try {
    checkShape(header.shape)
  } catch (e) {
    fail(`header.shape: ${(e as Error).message}`)
  }
  if (!Number.isSafeInteger(header.optimizerStep) || header.optimizerStep < 0)
    fail(`header.optimizerStep ${header.optimizerStep} is not a count`)
  if (!Array.isArray(header.tensors)) fail('header.tensors is not an array')
  const names = new Set<string>()
  header.tensors.forEach((t, i) => {
    if (!t || typeof t.name !== 'string') fail(`header.tensors[${i}] has no name`)
    if (names.has(t.name)) fail(`tensor ${t.name} is listed twice`)
    names.add(t.name)
    if (t.dtype !== 'f32' && t.dtype !== 'u32')
      fail(`tensor ${t.name}: dtype ${JSON.stringify(t.dtype)} is not f32 or u32`)
    for (const key of ['length', 'offset'] as const) {
      if (!Number.isSafeInteger(t[key]) || t[key] < 0)
        fail(`tensor ${t.name}: ${key} ${JSON.stringify(t[key])} is not a whole number ≥ 0`)
    }
    if (t.offset % 8 !== 0) fail(`tensor ${t.name}: offset ${t.offset} is not 8-byte aligned`)
  })
}

/** Kept best weights as named tensors (`best.` + the weight names), none when absent. */
function bestTensors(shape: ModelShape, best?: ModelWeights): [string, Float32Array][] {
  if (!best) return []
  return [
    ['best.embeddings', best.embeddings],
    ...denseTensors(shape).map((d, i): [string, Float32Array] => [`best.${d.name}`, best.dense[i]]),
  ]
}

function weightsFrom(
  shape: ModelShape,
  t: Map<string, Float32Array | Uint32Array>,
  prefix: string,
  fail: (why: string) => never,
): ModelWeights {
  const get = (name: string, length: number): Float32Array<ArrayBuffer> => {
    const a = t.get(prefix + name)
    if (!a || a.length !== length || !(a instanceof Float32Array))
      return fail(`tensor ${prefix}${name}: expected ${length} f32 values`)
    return a as Float32Array<ArrayBuffer>
  }
  return {
    embeddings: get('embeddings', shape.totalRows * shape.dim),
    dense: denseTensors(shape).map(d => get(d.name, d.length)),
  }
}

function stateFrom(
  shape: ModelShape,
  t: Map<string, Float32Array | Uint32Array>,
  step: number,
  fail: (why: string) => never,
): ModelState {
  const get = (name: string, length: number): Float32Array<ArrayBuffer> => {
    const a = t.get(name)
    if (!a || a.length !== length || !(a instanceof Float32Array))
      return fail(`tensor ${name}: expected ${length} f32 values`)
    return a as Float32Array<ArrayBuffer>
  }
  const dense = denseTensors(shape)
  const rd = shape.totalRows * shape.dim
  const opt: OptimizerState = {
    step,
    m: dense.map(d => get(`m.${d.name}`, d.length)),
    v: dense.map(d => get(`v.${d.name}`, d.length)),
  }
  if (t.has('adagrad.accum')) opt.accum = get('adagrad.accum', rd)
  if (t.has('rowwise.m')) {
    opt.embM = get('rowwise.m', rd)
    opt.embV = get('rowwise.v', rd)
    const rs = t.get('rowwise.step')
    if (!(rs instanceof Uint32Array) || rs.length !== shape.totalRows)
      fail(`tensor rowwise.step: expected ${shape.totalRows} u32 values`)
    opt.rowStep = rs as Uint32Array<ArrayBuffer>
  }
  return { weights: { embeddings: get('embeddings', rd), dense: dense.map(d => get(d.name, d.length)) }, opt }
}

function align8(n: number): number {
  return Math.ceil(n / 8) * 8
}

function assertLittleEndian(): void {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1)
    throw new Error('recsys checkpoints need a little-endian platform')
}
