/**
 * Allreduce through one SharedArrayBuffer (when the page is cross-origin isolated): each rank
 * writes its array into its own slot, all meet at a barrier, each rank sums every slot in rank
 * order itself (the same order as the hub, so the same bits), and all meet again before a slot
 * is reused. Barriers are Atomics counters waited on with Atomics.waitAsync (the rank's event
 * loop keeps running), bounded by timeoutMs; the coordinator's abort() wakes every waiter.
 * R = world size; layout: CTRL_WORDS control i32 words, then R slots of slotBytes bytes.
 */
import type { CollectiveArray, ReduceOp } from './types.ts'
import { arrayKind, reduceArrays } from './reduce.ts'

/** Control words: [ABORT, ARRIVED, GENERATION, pad], then META words per rank. */
const ABORT = 0,
  ARRIVED = 1,
  GENERATION = 2,
  HEAD = 4,
  META = 4
const KINDS = ['Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array']

/** Default bytes per rank slot: a level of GBDT histograms or an MLP's gradients; larger arrays use messages. */
export const DEFAULT_SLOT_BYTES = 8 << 20

/** Bytes of control words before the slots (8-byte aligned). */
function ctrlBytes(world: number): number {
  return Math.ceil(((HEAD + META * world) * 4) / 8) * 8
}

/** The shared buffer of a world of `world` ranks with `slotBytes` per rank. */
export function createSharedBuffer(world: number, slotBytes = DEFAULT_SLOT_BYTES): SharedArrayBuffer {
  return new SharedArrayBuffer(ctrlBytes(world) + world * slotBytes)
}

/** Wakes every rank waiting on `sab` and makes their pending and later calls fail. */
export function abortShared(sab: SharedArrayBuffer): void {
  const ctrl = new Int32Array(sab, 0, HEAD)
  Atomics.store(ctrl, ABORT, 1)
  Atomics.add(ctrl, GENERATION, 1)
  Atomics.notify(ctrl, GENERATION)
}

type WaitAsync = (a: Int32Array, i: number, v: number, t: number) => { async: boolean; value: Promise<string> | string }

/** One rank's view of the shared buffer. */
export class SharedReducer {
  private readonly ctrl: Int32Array
  private readonly slotBytes: number
  private calls = 0

  constructor(
    private readonly sab: SharedArrayBuffer,
    readonly rank: number,
    readonly world: number,
    private readonly timeoutMs: number,
    private readonly aborted: () => Error | undefined = () => undefined,
  ) {
    this.ctrl = new Int32Array(sab, 0, HEAD + META * world)
    this.slotBytes = (sab.byteLength - ctrlBytes(world)) / world
  }

  /** True when `data` fits a slot (every rank decides alike: the arrays have equal lengths). */
  fits(data: CollectiveArray): boolean {
    return data.byteLength <= this.slotBytes
  }

  /** Element-wise `op` over every rank's `data`, summed in rank order; a new array. */
  async allreduce<T extends CollectiveArray>(data: T, op: ReduceOp): Promise<T> {
    const call = ++this.calls
    new Uint8Array(this.sab, this.slot(this.rank), data.byteLength).set(
      new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    )
    const m = HEAD + META * this.rank
    this.ctrl.set([call, op === 'sum' ? 0 : 1, KINDS.indexOf(arrayKind(data)), data.length], m)
    await this.barrier(call, 'written')
    const views = Array.from({ length: this.world }, (_, r) => this.view(r, data))
    let out: T
    try {
      this.checkMeta(call)
      out = reduceArrays(views, op)
    } finally {
      // Everyone has read every slot before any rank writes its next array.
      await this.barrier(call, 'read')
    }
    return out
  }

  private slot(r: number): number {
    return ctrlBytes(this.world) + r * this.slotBytes
  }

  private view<T extends CollectiveArray>(r: number, like: T): T {
    const Ctor = like.constructor as new (b: ArrayBufferLike, o: number, n: number) => T
    return new Ctor(this.sab, this.slot(r), like.length)
  }

  /** Throws naming the first rank whose call number, op, type or length differs from rank 0's. */
  private checkMeta(call: number): void {
    const m0 = this.ctrl.subarray(HEAD, HEAD + META)
    for (let r = 1; r < this.world; r++) {
      const m = this.ctrl.subarray(HEAD + META * r, HEAD + META * (r + 1))
      if (m.some((v, i) => v !== m0[i])) {
        throw new Error(
          `allreduce #${call} (shared memory): rank ${r} sent [call, op, type, length] = [${m.join(', ')}], rank 0 [${m0.join(', ')}]`,
        )
      }
    }
  }

  /** Sense-free generation barrier: the last to arrive resets the count and bumps the generation. */
  private async barrier(call: number, what: string): Promise<void> {
    const c = this.ctrl,
      gen = Atomics.load(c, GENERATION)
    this.throwIfAborted()
    if (Atomics.add(c, ARRIVED, 1) === this.world - 1) {
      Atomics.store(c, ARRIVED, 0)
      Atomics.add(c, GENERATION, 1)
      Atomics.notify(c, GENERATION)
      return
    }
    const deadline = performance.now() + this.timeoutMs
    while (Atomics.load(c, GENERATION) === gen) {
      const left = deadline - performance.now()
      if (left <= 0)
        throw new Error(
          `rank ${this.rank}: allreduce #${call} (shared memory, ${what}) timed out after ${this.timeoutMs / 1000} s; ranks not there: ${this.late(call).join(', ')}`,
        )
      const w = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync(c, GENERATION, gen, left)
      if (w.async) await w.value
    }
    this.throwIfAborted()
  }

  /** Ranks that have not reached call `call` yet. */
  private late(call: number): number[] {
    return Array.from({ length: this.world }, (_, r) => r).filter(r => Atomics.load(this.ctrl, HEAD + META * r) < call)
  }

  private throwIfAborted(): void {
    if (Atomics.load(this.ctrl, ABORT) === 1)
      throw this.aborted() ?? new Error(`rank ${this.rank}: aborted by the coordinator`)
  }
}
