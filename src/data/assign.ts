/**
 * Assignment of an epoch's rows to ranks and loader workers — a pure function of (plan, seed,
 * epoch, worldSize), so every rank and worker computes its own share with no coordination.
 *
 * The epoch's global sequence is the live rows of the units concatenated in the epoch's unit order
 * (N rows). Rank r takes the contiguous positions [r·per, (r+1)·per) of it: contiguous, so a rank
 * reads few units (each unit is a range read). Equal counts come from dropping the sequence's tail
 * (`drop_last`, PyTorch DistributedSampler's drop_last) or repeating its head (`pad`); `all` keeps
 * every row exactly once (numpy's array_split: the first N mod worldSize ranks get one row more),
 * for readers that must see the whole table across their shards (a Dask worker's partition).
 */
import type { AssignOptions, RankSegment, RankStream, ScanPlan, ShardMode } from './types.ts'
import { unitOrder } from './shuffle.ts'

/** Default rows per shuffle window: large enough to mix across unit boundaries, 64 KiB of ids. */
export const DEFAULT_SHUFFLE_BUFFER = 16_384

/** AssignOptions validated, with defaults filled in. */
export interface ResolvedAssign {
  seed?: number
  epoch: number
  worldSize: number
  rank: number
  mode: ShardMode
  shuffleBuffer: number
}

/**
 * Validate `opts` (RangeError naming the parameter) and fill defaults: mode `drop_last`,
 * shuffleBuffer 16 384.
 */
export function resolveAssign(opts: AssignOptions): ResolvedAssign {
  const { seed, epoch, worldSize, rank } = opts
  const mode = opts.mode ?? 'drop_last'
  const shuffleBuffer = opts.shuffleBuffer ?? DEFAULT_SHUFFLE_BUFFER
  if (seed !== undefined && !Number.isSafeInteger(seed)) throw bad('seed', seed, 'an integer')
  if (!isIntAtLeast(epoch, 0)) throw bad('epoch', epoch, 'an integer ≥ 0')
  if (!isIntAtLeast(worldSize, 1)) throw bad('worldSize', worldSize, 'an integer ≥ 1')
  if (!isIntAtLeast(rank, 0) || rank >= worldSize) {
    throw bad('rank', rank, `an integer in [0, ${worldSize}) (worldSize ${worldSize})`)
  }
  if (mode !== 'drop_last' && mode !== 'pad' && mode !== 'all') throw bad('mode', mode, "'drop_last', 'pad' or 'all'")
  if (!isIntAtLeast(shuffleBuffer, 0)) throw bad('shuffleBuffer', shuffleBuffer, 'an integer ≥ 0')
  return { seed, epoch, worldSize, rank, mode, shuffleBuffer }
}

function isIntAtLeast(v: unknown, min: number): v is number {
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= min
}

function bad(name: string, value: unknown, want: string): RangeError {
  return new RangeError(`${name} must be ${want}, got ${JSON.stringify(value) ?? String(value)}`)
}

/** Live rows of the plan (Σ unit.liveRows) — the epoch's N. */
export function planRows(plan: ScanPlan): number {
  let n = 0
  for (const u of plan.units) n += u.liveRows
  return n
}

/** Per-rank share of an N-row epoch: rank stream length and what was dropped or repeated. */
export interface RankSplit extends Omit<RankStream, 'shuffleBuffer'> {
  /** Position in the (padded) epoch sequence where this rank's rows start. */
  offset: number
}

/** Cut N rows into `worldSize` equal shares (`rank`'s starts at rank·length), or for `all` into shares of ⌊N/worldSize⌋ or one more. */
export function rankSplit(rows: number, worldSize: number, rank: number, mode: ShardMode): RankSplit {
  if (mode === 'all') {
    const base = Math.floor(rows / worldSize)
    const extra = rows - base * worldSize
    return {
      length: base + (rank < extra ? 1 : 0),
      offset: rank * base + Math.min(rank, extra),
      rowsDropped: 0,
      rowsPadded: 0,
    }
  }
  const per = mode === 'pad' ? Math.ceil(rows / worldSize) : Math.floor(rows / worldSize)
  const total = per * worldSize
  return {
    length: per,
    offset: rank * per,
    rowsDropped: Math.max(0, rows - total),
    rowsPadded: Math.max(0, total - rows),
  }
}

/** The epoch's unit order with prefix sums of live rows, for position → (unit, index) lookups. */
export interface EpochSequence {
  /** Unit ids in epoch order. */
  order: Uint32Array
  /** starts[k] = rows before order[k]; length order.length + 1, last = rows. */
  starts: Float64Array
  rows: number
}

/** Build the epoch sequence of `plan` for (seed, epoch); seed undefined = table order. */
export function epochSequence(plan: ScanPlan, seed: number | undefined, epoch: number): EpochSequence {
  const order = unitOrder(plan, seed, epoch)
  const starts = new Float64Array(order.length + 1)
  for (let k = 0; k < order.length; k++) starts[k + 1] = starts[k] + plan.units[order[k]].liveRows
  return { order, starts, rows: starts[order.length] }
}

/**
 * Index k into seq.order of the unit holding epoch position g (0 ≤ g < rows): the last k with
 * starts[k] ≤ g, which skips zero-row units. `hint` (a previous answer) makes runs of neighbouring
 * positions O(1).
 */
export function locate(seq: EpochSequence, g: number, hint = -1): number {
  const s = seq.starts
  if (hint >= 0 && s[hint] <= g && g < s[hint + 1]) return hint
  let lo = 0
  let hi = seq.order.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1
    if (s[mid] <= g) lo = mid
    else hi = mid - 1
  }
  return lo
}

/** A row's identity: file path as in the log and the file-relative row index. */
export interface RowIdentity {
  path: string
  row: number
}

/** Identity of live row `liveIndex` of unit `unitId` (RangeError when either is out of range). */
export function identity(plan: ScanPlan, unitId: number, liveIndex: number): RowIdentity {
  const unit = plan.units[unitId]
  if (!unit) throw new RangeError(`unit ${unitId} is not in the plan (${plan.units.length} units)`)
  if (!(liveIndex >= 0 && liveIndex < unit.liveRows)) {
    throw new RangeError(`live index ${liveIndex} is out of range for unit ${unitId} (${unit.liveRows} live rows)`)
  }
  const row = unit.live ? unit.live[liveIndex] : unit.rowStart + liveIndex
  return { path: plan.files[unit.fileIndex].path, row }
}

/** `path:row`, the line `snaptrain scan --format ids` prints. */
export function identityString(plan: ScanPlan, unitId: number, liveIndex: number): string {
  const { path, row } = identity(plan, unitId, liveIndex)
  return `${path}:${row}`
}

/** File-relative row index per row: Uint32Array of unit.length (what Batch.ids.row holds). */
export function fileRows(plan: ScanPlan, unit: Uint32Array, index: Uint32Array): Uint32Array {
  const out = new Uint32Array(unit.length)
  for (let i = 0; i < unit.length; i++) {
    const u = plan.units[unit[i]]
    if (!u || index[i] >= u.liveRows) identity(plan, unit[i], index[i]) // throws the RangeError
    out[i] = u.live ? u.live[index[i]] : u.rowStart + index[i]
  }
  return out
}

/**
 * Segments loader worker `worker` (0 … workersPerRank-1) of a rank reads: units dealt
 * round-robin in the order the rank first needs them, every segment of a unit to the same worker.
 * Only who reads what depends on workersPerRank — the delivered row order never does.
 */
export function workerShare(
  stream: { segments(): RankSegment[] },
  workersPerRank: number,
  worker: number,
): RankSegment[] {
  if (!isIntAtLeast(workersPerRank, 1)) throw bad('workersPerRank', workersPerRank, 'an integer ≥ 1')
  if (!isIntAtLeast(worker, 0) || worker >= workersPerRank) {
    throw bad('worker', worker, `an integer in [0, ${workersPerRank})`)
  }
  const dealt = new Map<number, number>()
  const mine: RankSegment[] = []
  for (const seg of stream.segments()) {
    let owner = dealt.get(seg.unit)
    if (owner === undefined) dealt.set(seg.unit, (owner = dealt.size % workersPerRank))
    if (owner === worker) mine.push(seg)
  }
  return mine
}
