/**
 * Quantile cuts over ranks, identical to buildCuts on all the rows for every R: each
 * rank holds the contiguous global rows [lo, lo + n) of N; the sketch's chunks are global row
 * ranges [k·C, (k+1)·C) (C = SKETCH_CHUNK_ROWS, what sketchColumn uses), so a rank summarises
 * its part of each chunk exactly (pruned when it holds the whole chunk), the parts are gathered,
 * combined per chunk in rank order — exact summaries of disjoint rows combine into the exact
 * summary of their union — and merged chunk by chunk as sketchColumn does. Exact for integer
 * row weights (all 1 without weights); F = features, K = summary entries.
 */
import type { Collective } from '../../ranks/types.ts'
import type { Cuts } from './types.ts'
import { combine, emptySummary, prune, summarise, type Summary } from './sketch.ts'
import { cutsFromSummaries, hasMissing, SKETCH_RATIO } from './cuts.ts'

/** Rows per sketch chunk: sketchColumn's default chunkRows, which buildCuts uses. */
export const SKETCH_CHUNK_ROWS = 1 << 16

/** A rank's summary of its rows of chunk `chunk` of one feature. */
export interface ChunkPart { chunk: number; summary: Summary }

/**
 * Parts of one feature column (this rank's rows [lo, lo + values.length) of `total`): one per
 * chunk touched, exact, or pruned to `limit` when the rank holds the whole chunk and the table
 * has more than one chunk (sketchColumn keeps a single chunk exact).
 */
export function chunkParts(values: Float32Array, weights: Float32Array | undefined, lo: number, total: number, limit: number): ChunkPart[] {
  const C = SKETCH_CHUNK_ROWS, hi = lo + values.length, out: ChunkPart[] = []
  for (let start = lo; start < hi;) {
    const chunk = Math.floor(start / C), end = Math.min(hi, (chunk + 1) * C)
    const s = summarise(values.subarray(start - lo, end - lo), weights?.subarray(start - lo, end - lo))
    const whole = start === chunk * C && end === Math.min(total, (chunk + 1) * C)
    out.push({ chunk, summary: whole && total > C ? prune(s, limit) : s })
    start = end
  }
  return out
}

/** One feature's summary from every rank's parts (outer index = rank), as sketchColumn would build it from all rows. */
export function mergeParts(perRank: ChunkPart[][], total: number, limit: number): Summary {
  const chunks = new Map<number, Summary>()
  for (const parts of perRank) for (const p of parts) chunks.set(p.chunk, combine(chunks.get(p.chunk) ?? emptySummary(), p.summary))
  if (total <= SKETCH_CHUNK_ROWS) return chunks.get(0) ?? emptySummary()
  let acc = emptySummary()
  for (let k = 0; k * SKETCH_CHUNK_ROWS < total; k++) acc = prune(combine(acc, prune(chunks.get(k) ?? emptySummary(), limit)), limit)
  return acc
}

/**
 * buildCuts(all columns, maxBin, weights) computed by every rank from its own rows: `columns`
 * (F Float32Arrays of this rank's n rows), global rows [lo, lo + n) of `total`. Two collectives:
 * allreduceMax of the per-feature missing flags, allgather of the chunk parts.
 */
export async function distCuts(columns: Float32Array[], weights: Float32Array | undefined, lo: number, total: number, maxBin: number, coll: Collective): Promise<Cuts> {
  const limit = SKETCH_RATIO * maxBin
  const missing = await coll.allreduceMax(Int32Array.from(columns, c => (hasMissing(c) ? 1 : 0)))
  const all = await coll.allgather(columns.map(c => chunkParts(c, weights, lo, total, limit)))
  const summaries = columns.map((_, f) => mergeParts(all.map(rank => rank[f]), total, limit))
  return cutsFromSummaries(summaries, columns.map((_, f) => (missing[f] ? Math.min(maxBin, 255) : maxBin)))
}
