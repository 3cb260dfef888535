/**
 * Per-stage timing of a GBDT training run: a BackendFactory wrapper around the product's backend
 * (the driver calls it exactly as in `train`) that clocks every backend call from its start until
 * its work has finished on the device (`sync`, e.g. the queue's onSubmittedWorkDone), and counts
 * the rows each histogram build touches by replaying the applied splits on the CPU with the
 * product's partition reference (row_partition.ref.ts, what the CPU backend runs): the GPU backend
 * keeps row positions on the device. The replay is bookkeeping, kept outside the clocks and
 * reported, so it can be subtracted.
 */
import type { AppliedSplit, BackendFactory, BackendSetup, GbdtBackend } from '../src/models/gbdt/backend.ts'
import { rowPartition } from '../src/kernels/gbdt/row_partition.ref.ts'
import { splitTable } from '../src/models/gbdt/split-table.ts'

/** Stages of a round, in execution order (the backend method each one clocks in the comment). */
export const GBDT_STAGES = [
  'gradient+quantise', // beginRound
  'histogram', // buildHistograms
  'subtract', // subtractHistograms
  'evaluate', // evaluateSplits (incl. reading the split candidates back)
  'partition', // applySplits
  'margin update', // finishTree
  'readback', // validMargins (validation margins to the CPU) and trainMargins
] as const

/** One stage name. */
export type GbdtStage = (typeof GBDT_STAGES)[number]

/** Per-round accumulated milliseconds per stage, rows built, and bookkeeping time. */
export interface RoundTimes {
  /** Milliseconds per stage (wall clock, start of the call → device idle). */
  ms: Record<GbdtStage, number>
  /** Rows whose histogram entries were built (sum over builds; × F = bin updates). */
  builtRows: number
  /** Histogram builds (calls of buildHistograms). */
  builds: number
  /** Milliseconds spent in this wrapper's row counting (not part of any stage). */
  bookkeepingMs: number
  /**
   * Milliseconds of host-computed gradients (setup.hostGradients: ranking's per-group pairs on
   * the CPU), a part of 'gradient+quantise'; 0 for objectives whose gradients a kernel computes.
   */
  hostGradientMs: number
}

/** A fresh, zeroed RoundTimes. */
export function emptyRound(): RoundTimes {
  const ms = Object.fromEntries(GBDT_STAGES.map(s => [s, 0])) as Record<GbdtStage, number>
  return { ms, builtRows: 0, builds: 0, bookkeepingMs: 0, hostGradientMs: 0 }
}

/** Collects one RoundTimes per beginRound. */
export class StageClock {
  readonly rounds: RoundTimes[] = []

  /** The round being timed (a round is started by beginRound). */
  current(): RoundTimes {
    if (this.rounds.length === 0) this.rounds.push(emptyRound())
    return this.rounds[this.rounds.length - 1]
  }

  /** Runs `body`, waits for `sync`, and adds the elapsed milliseconds to `stage`. */
  async time<T>(stage: GbdtStage, sync: () => Promise<void>, body: () => Promise<T> | T): Promise<T> {
    const t0 = performance.now()
    const out = await body()
    await sync()
    this.current().ms[stage] += performance.now() - t0
    return out
  }
}

/**
 * Wraps `factory` so each backend call is timed into `clock`. `sync` resolves when the device
 * has finished submitted work (for the CPU backend: a resolved promise).
 */
export function timedBackend(factory: BackendFactory, clock: StageClock, sync: () => Promise<void>): BackendFactory {
  return async (setup: BackendSetup): Promise<GbdtBackend> => {
    const host = setup.hostGradients
    const hostGradients: BackendSetup['hostGradients'] =
      host &&
      ((round, margins, rowOffset) => {
        const t0 = performance.now()
        const out = host(round, margins, rowOffset)
        clock.current().hostGradientMs += performance.now() - t0
        return out
      })
    const inner = await factory(host ? { ...setup, hostGradients } : setup)
    const rows = new RowCounter(setup)
    const t = <T>(stage: GbdtStage, body: () => Promise<T> | T): Promise<T> => clock.time(stage, sync, body)
    return {
      beginRound: round => {
        clock.rounds.push(emptyRound())
        rows.reset()
        return t('gradient+quantise', () => inner.beginRound(round))
      },
      buildHistograms: nids => {
        countBuilt(clock, rows, nids)
        return t('histogram', () => inner.buildHistograms(nids))
      },
      subtractHistograms: jobs => t('subtract', () => inner.subtractHistograms(jobs)),
      evaluateSplits: nodes => t('evaluate', () => inner.evaluateSplits(nodes)),
      applySplits: async splits => {
        await t('partition', () => inner.applySplits(splits))
        bookkeep(clock, () => rows.apply(splits))
      },
      releaseHistograms: nids => inner.releaseHistograms(nids),
      finishTrees: (trees, values) => t('margin update', () => inner.finishTrees(trees, values)),
      validMargins: () => t('readback', () => inner.validMargins()),
      trainMargins: () => t('readback', () => inner.trainMargins()),
      leafPositions: () => t('readback', () => inner.leafPositions()),
      dispose: () => inner.dispose(),
    }
  }
}

function countBuilt(clock: StageClock, rows: RowCounter, nids: number[]): void {
  const r = clock.current()
  r.builds++
  bookkeep(clock, () => {
    r.builtRows += rows.count(nids)
  })
}

function bookkeep(clock: StageClock, body: () => void): void {
  const t0 = performance.now()
  body()
  clock.current().bookkeepingMs += performance.now() - t0
}

/**
 * CPU replica of the row positions (same reference partition as the CPU backend), used only to
 * count the rows of the nodes whose histograms are built. Assumes no row sampling (subsample 1),
 * which the bench uses: every row starts at the root.
 */
export class RowCounter {
  private readonly positions: Uint32Array

  constructor(private readonly setup: Pick<BackendSetup, 'binned'>) {
    this.positions = new Uint32Array(setup.binned.rows)
  }

  /** Every row back at the root. */
  reset(): void {
    this.positions.fill(0)
  }

  /** Rows currently in any of `nids`. */
  count(nids: readonly number[]): number {
    const want = new Set(nids)
    let n = 0
    for (const p of this.positions) if (want.has(p)) n++
    return n
  }

  /** Moves rows of the split nodes to their children. */
  apply(splits: readonly AppliedSplit[]): void {
    if (splits.length === 0) return
    const K = Math.max(...splits.map(s => s.nid)) + 1
    const table = splitTable(splits, K)
    const b = this.setup.binned
    rowPartition(b.bins, b.missOff, table, this.positions, { rows: b.rows, rowWords: b.rowWords, nodes: K })
  }
}
