/**
 * Seeded sampling of rows (subsample) and columns (colsample_bytree / bylevel / bynode, nested as
 * XGBoost's `ColumnSampler`). Row decisions are a pure hash of (seed, round, row), so they do not
 * depend on how rows are chunked or spread over ranks, and a WGSL kernel can compute the same.
 * N = rows, F = features.
 */
import { fmix32 } from '../../util/hash.ts'
import { Rng, sampleInPlace } from '../../util/rng.ts'

/** Uniform u32 of (seed, round, row). */
export function rowHash(seed: number, round: number, row: number): number {
  return fmix32((fmix32((fmix32(seed >>> 0) ^ round) >>> 0) ^ row) >>> 0)
}

/**
 * Tree index of class k's tree in round `round` (round-major, K trees per round): what its row
 * and column samples are drawn from — XGBoost's hist samples each class tree afresh. K = 1: the round.
 */
export function treeIndex(round: number, k: number, K: number): number {
  return round * K + k
}

/** True when global row `row` takes part in round `round` with sampling rate `subsample`. */
export function rowSampled(seed: number, round: number, row: number, subsample: number): boolean {
  return subsample >= 1 || rowHash(seed, round, row) / 4294967296 < subsample
}

/** A uniformly chosen subset of `from` of size max(1, floor(fraction · |from|)), kept sorted. */
function sampleSubset(from: number[], fraction: number, rng: Rng): number[] {
  if (fraction >= 1) return from
  const n = Math.max(1, Math.floor(fraction * from.length))
  const a = from.slice()
  sampleInPlace(a, n, rng)
  return a.slice(0, n).sort((x, y) => x - y)
}

/** Column sampler of one boosting run (XGBoost ColumnSampler: bytree ⊇ bylevel ⊇ bynode). */
export class ColumnSampler {
  private tree: number[] = []
  private levels = new Map<number, number[]>()
  private round = 0

  /** `features` = F; fractions as the colsample_* parameters; `seed` the run's seed. */
  constructor(
    private features: number,
    private p: { colsample_bytree: number; colsample_bylevel: number; colsample_bynode: number },
    private seed: number,
  ) {}

  /** Starts tree `round`: draws its feature set. */
  beginTree(round: number): void {
    const all = Array.from({ length: this.features }, (_, f) => f)
    this.tree = sampleSubset(all, this.p.colsample_bytree, new Rng(fmix32(this.seed ^ fmix32(round + 1))))
    this.levels.clear()
    this.round = round
  }

  /** Feature mask (Uint8Array(F), 1 = allowed) for node `nid` at depth `depth`. */
  mask(depth: number, nid: number): Uint8Array {
    let level = this.levels.get(depth)
    if (!level) {
      level = sampleSubset(
        this.tree,
        this.p.colsample_bylevel,
        new Rng(fmix32(this.seed ^ fmix32(this.round * 64 + depth + 7))),
      )
      this.levels.set(depth, level)
    }
    const node = sampleSubset(
      level,
      this.p.colsample_bynode,
      new Rng(fmix32(this.seed ^ fmix32(this.round * 65599 + nid + 13))),
    )
    const m = new Uint8Array(this.features)
    for (const f of node) m[f] = 1
    return m
  }
}
