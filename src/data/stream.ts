/**
 * A rank's epoch stream: position p (0 … length-1) → (unit id, live-row index).
 *
 * p lies in shuffle window w = ⌊p/B⌋ at slot p mod B; the window's permutation (seeded by seed,
 * epoch, rank, w) names the pre-shuffle position q in the same window; the rank's share of the
 * epoch sequence puts q at epoch position g = offset + q (mod N when padding repeats the head);
 * prefix sums over the epoch's unit order give the unit. Every step is a pure function of p, so a
 * resumed run recomputes exactly the rows an uninterrupted one would have delivered, and no
 * per-row array of the whole epoch is ever built (one window's permutation at a time).
 */
import type { AssignOptions, RankSegment, RankStreamView, ScanPlan } from './types.ts'
import { epochSequence, locate, planRows, rankSplit, resolveAssign, type EpochSequence } from './assign.ts'
import { windowPermutation } from './shuffle.ts'

/**
 * Build rank `opts.rank`'s stream for epoch `opts.epoch` (RangeError naming a bad option). Without
 * a seed, or with shuffleBuffer 0, rows come in unit order (table order without a seed).
 */
export function rankStream(plan: ScanPlan, opts: AssignOptions): RankStreamView {
  const options = resolveAssign(opts)
  const { seed, epoch, rank } = options
  const seq = epochSequence(plan, seed, epoch)
  const split = rankSplit(planRows(plan), options.worldSize, rank, options.mode)
  const length = split.length
  // No seed means no shuffling at all (the CLI's "without --seed, table order").
  const window = seed === undefined ? 0 : Math.min(options.shuffleBuffer, length)
  const perms = new WindowCache(length, window, w =>
    windowPermutation(Math.min(window, length - w * window), seed ?? 0, epoch, rank, w),
  )
  let segs: RankSegment[] | undefined
  const segments = (): RankSegment[] => (segs ??= buildSegments(seq, split.offset, length, window))

  return {
    length,
    rowsDropped: split.rowsDropped,
    rowsPadded: split.rowsPadded,
    shuffleBuffer: window,
    options: { ...options, shuffleBuffer: window },
    rowsAt: (start, end) => rowsAt(seq, split.offset, perms, checkRange(start, end, length)),
    unitsFor: (start, end) => unitsFor(segments(), checkRange(start, end, length)),
    unitsInOrder: () => firstSeen(segments()),
    segments: () => segments().map(s => ({ ...s })),
  }
}

/** Keeps the permutations of the two most recent windows (a batch may straddle a boundary). */
class WindowCache {
  private keys: number[] = []
  private perms: Uint32Array[] = []

  constructor(
    readonly length: number,
    readonly window: number,
    private readonly build: (w: number) => Uint32Array,
  ) {}

  /** Pre-shuffle position of stream position p. */
  source(p: number): number {
    if (this.window === 0) return p
    const w = Math.floor(p / this.window)
    return w * this.window + this.perm(w)[p - w * this.window]
  }

  private perm(w: number): Uint32Array {
    const i = this.keys.indexOf(w)
    if (i >= 0) return this.perms[i]
    const perm = this.build(w)
    this.keys = [w, ...this.keys.slice(0, 1)]
    this.perms = [perm, ...this.perms.slice(0, 1)]
    return perm
  }
}

function checkRange(start: number, end: number, length: number): [number, number] {
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start || end > length) {
    throw new RangeError(`position range [${start}, ${end}) must lie within the rank stream [0, ${length})`)
  }
  return [start, end]
}

function rowsAt(
  seq: EpochSequence,
  offset: number,
  perms: WindowCache,
  [start, end]: [number, number],
): { unit: Uint32Array; index: Uint32Array } {
  const n = end - start
  const unit = new Uint32Array(n)
  const index = new Uint32Array(n)
  let k = -1
  for (let i = 0; i < n; i++) {
    // pad: positions past the epoch's end wrap to its head.
    const g = (offset + perms.source(start + i)) % seq.rows
    k = locate(seq, g, k)
    unit[i] = seq.order[k]
    index[i] = g - seq.starts[k]
  }
  return { unit, index }
}

/**
 * Walk the rank's pre-shuffle positions [0, length) — epoch positions offset … offset+length-1,
 * wrapping for pad — as runs of one unit each.
 */
function buildSegments(seq: EpochSequence, offset: number, length: number, window: number): RankSegment[] {
  const out: RankSegment[] = []
  let q = 0
  while (q < length) {
    const g = (offset + q) % seq.rows
    const k = locate(seq, g)
    const start = g - seq.starts[k]
    const take = Math.min(seq.starts[k + 1] - g, length - q)
    const [needFrom, needTo] =
      window === 0
        ? [q, q + take]
        : [Math.floor(q / window) * window, Math.min(length, Math.ceil((q + take) / window) * window)]
    out.push({ unit: seq.order[k], start, end: start + take, position: q, needFrom, needTo })
    q += take
  }
  return out
}

/** Units of the segments whose need range meets [start, end), first-need order, each once. */
function unitsFor(segs: RankSegment[], [start, end]: [number, number]): number[] {
  if (start === end) return []
  return firstSeen(segs.filter(s => s.needFrom < end && s.needTo > start))
}

function firstSeen(segs: RankSegment[]): number[] {
  const seen = new Set<number>()
  for (const s of segs) seen.add(s.unit)
  return [...seen]
}
