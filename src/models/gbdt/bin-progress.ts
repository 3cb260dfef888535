/**
 * Cuts and binned matrix of a sweep's training columns, one feature at a time so the page can
 * show a moving progress bar: buildCuts and binMatrix treat features independently, so binning
 * each column alone and concatenating gives the same cuts and bytes as one call over all of them.
 * Between features, once a slice of work has run (SLICE_MS), it yields a task so the page can
 * paint the bar: a MessageChannel task, not setTimeout, which a hidden tab throttles to once a
 * second or even a minute (Chrome's intensive throttling of chained timers).
 */
import { buildCuts, type CategoricalFeatures } from './cuts.ts'
import { binMatrix } from './binned.ts'
import type { BinnedMatrix, Cuts } from './types.ts'

/** Work between two yields to the page, in ms (short enough for a bar to move smoothly). */
const SLICE_MS = 50

/** Hears the share of features binned so far, in [0, 1] (0 first, 1 last). */
export type BinProgress = (fraction: number) => void

/**
 * Cuts (≤ `maxBin` bins per feature) and the binned matrix of `columns` (F columns of N rows,
 * optional per-row `weights`), equal to buildCuts + binMatrix over all columns at once (with the
 * same `categorical` features). `sliceMs`: work between yields (tests: 0 = yield after every feature).
 */
export async function binColumns(
  columns: ArrayLike<number>[],
  maxBin: number,
  weights: ArrayLike<number> | undefined,
  onProgress: BinProgress = () => {},
  sliceMs = SLICE_MS,
  categorical?: CategoricalFeatures,
): Promise<{ cuts: Cuts; binned: BinnedMatrix }> {
  const F = columns.length
  const parts: Array<{ cuts: Cuts; binned: BinnedMatrix }> = []
  onProgress(0)
  let slice = performance.now()
  for (let f = 0; f < F; f++) {
    const one = categorical && { flags: categorical.flags.subarray(f, f + 1), names: categorical.names.slice(f, f + 1) }
    const cuts = buildCuts([columns[f]], maxBin, weights, one)
    parts.push({ cuts, binned: binMatrix([columns[f]], cuts) })
    onProgress((f + 1) / F)
    if (f + 1 < F && performance.now() - slice >= sliceMs) {
      await nextTask()
      slice = performance.now()
    }
  }
  if (F === 0) onProgress(1)
  const out = concat(parts, F === 0 ? 0 : columns[0].length)
  if (categorical?.flags.some(x => x === 1)) out.cuts.categorical = Uint8Array.from(categorical.flags)
  return out
}

/** One-feature cuts and matrices → the F-feature ones (feature-major byte planes, see binned.ts). */
function concat(
  parts: Array<{ cuts: Cuts; binned: BinnedMatrix }>,
  rows: number,
): { cuts: Cuts; binned: BinnedMatrix } {
  const F = parts.length,
    rowWords = Math.ceil(rows / 4)
  const cutPtrs = new Uint32Array(F + 1)
  parts.forEach((p, f) => {
    cutPtrs[f + 1] = cutPtrs[f] + p.cuts.cutValues.length
  })
  const cutValues = new Float32Array(cutPtrs[F]),
    minValues = new Float32Array(F)
  const bins = new Uint32Array(F * rowWords),
    missOff = new Uint32Array(F)
  parts.forEach((p, f) => {
    cutValues.set(p.cuts.cutValues, cutPtrs[f])
    minValues[f] = p.cuts.minValues[0]
    bins.set(p.binned.bins, f * rowWords)
    missOff[f] = p.binned.missOff[0]
  })
  return { cuts: { cutPtrs, cutValues, minValues }, binned: { rows, features: F, rowWords, bins, missOff } }
}

/** Resolves in a new task (a posted message), after the page had its chance to render. */
function nextTask(): Promise<void> {
  return new Promise(resolve => {
    const { port1, port2 } = new MessageChannel()
    port1.onmessage = () => {
      port1.close()
      resolve()
    }
    port2.postMessage(null)
  })
}
