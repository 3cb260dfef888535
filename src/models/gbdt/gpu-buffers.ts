/**
 * The GPU backend's resident buffers, uploaded once per training run along a ChunkPlan: per row
 * chunk the per-row buffers, per feature chunk the missOff / cutPtrs slices, per (row chunk,
 * feature chunk) a tile of the binned matrix, per validation chunk the raw features.
 * N = rows, F = features, V = validation rows, B = total bins.
 */
import { createBuffer, STORAGE_RW, uploadBuffer } from '../../gpu/buffers.ts'
import { ROW_ARGS_BYTES } from '../../kernels/gbdt/row_compact.ts'
import type { BackendSetup } from './backend.ts'
import type { ChunkPlan, Range } from './gpu-chunks.ts'
import { histogramChunks } from '../../kernels/gbdt/histogram_build_wg.ts'
import { outputsOf } from './objective.ts'

/** Per-row buffers of training rows [r0, r0 + n). */
export interface RowChunk {
  r0: number
  n: number
  /** ceil(n / 4): words per feature in this chunk's tiles. */
  rowWords: number
  /** f32 × n·K margins (K outputs per row: multiclass num_class, else 1); labels, weights f32 × n. */
  margins: GPUBuffer
  labels: GPUBuffer
  weights?: GPUBuffer
  /** u32 × n·K node id per (row, class). */
  positions: GPUBuffer
  /** vec2<f32> × n·K and vec2<i32> × n·K gradient pairs. */
  gpair: GPUBuffer
  qgpair: GPUBuffer
  /** Multiclass (K > 1): u32 × n·K, entry (i, k) = k — every row at its class tree's root. */
  roots?: GPUBuffer
  /** u32 × rowWords zeros: a one-bin "feature" every row falls in, for the root sums. */
  zeros: GPUBuffer
  /** row_compact's output: u32 × n rows of the nodes built this level (grouped by slot), and the
   *  indirect dispatch arguments of histogram_build_rows over them (u32 × 3, INDIRECT usage). */
  rowList: GPUBuffer
  rowArgs: GPUBuffer
}

/** Feature slice [f0, f0 + f) of missOff and cutPtrs (cutPtrs keeps global bin numbers). */
export interface FeatureChunk {
  f0: number
  f: number
  missOff: GPUBuffer
  /** u32 × (f + 1): cutPtrs[f0 ..= f0 + f]. */
  cutPtrs: GPUBuffer
  /** histogram_build_wg's chunk table over this slice, and its entry count. */
  wgChunks: GPUBuffer
  wgCount: number
}

/** Raw validation features of rows [v0, v0 + v), row-major, plus margins and scratch. */
export interface ValidChunk {
  v0: number
  v: number
  /** f32 × v·F. */
  features: GPUBuffer
  /** f32 × v: margins; one tree's leaf values (scratch); u32 × v: 0, 1, …, v − 1. */
  margins: GPUBuffer
  leaf: GPUBuffer
  identity: GPUBuffer
}

/** All resident buffers of one run. */
export interface Resident {
  rows: RowChunk[]
  features: FeatureChunk[]
  /** tiles[r][c]: u32 × F_c · rowWords_r, the binned matrix of row chunk r × feature chunk c. */
  tiles: GPUBuffer[][]
  valid: ValidChunk[]
}

/** Uploads everything `s` holds along `plan`. */
export function uploadResident(device: GPUDevice, s: BackendSetup, plan: ChunkPlan): Resident {
  const rows = plan.rows.map(r => uploadRows(device, s, r))
  const features = plan.features.map(fr => uploadFeatures(device, s, fr))
  const tiles = plan.rows.map(r => plan.features.map(fr => uploadTile(device, s, r, fr)))
  const valid = plan.validRows.map(r => uploadValid(device, s, r))
  return { rows, features, tiles, valid }
}

/** Destroys every buffer of `r`. */
export function destroyResident(r: Resident): void {
  const all: Array<GPUBuffer | undefined> = [
    ...r.rows.flatMap(c => [
      c.margins,
      c.labels,
      c.weights,
      c.positions,
      c.gpair,
      c.qgpair,
      c.zeros,
      c.rowList,
      c.rowArgs,
      c.roots,
    ]),
    ...r.features.flatMap(c => [c.missOff, c.cutPtrs, c.wgChunks]),
    ...r.tiles.flat(),
    ...r.valid.flatMap(c => [c.features, c.margins, c.leaf, c.identity]),
  ]
  all.forEach(b => b?.destroy())
}

function uploadRows(device: GPUDevice, s: BackendSetup, [r0, r1]: Range): RowChunk {
  const n = r1 - r0,
    rowWords = Math.ceil(n / 4),
    K = outputsOf(s.params)
  return {
    r0,
    n,
    rowWords,
    margins: uploadBuffer(
      device,
      s.initMargins?.train.slice(r0 * K, r1 * K) ?? new Float32Array(n * K).fill(s.baseMargin),
    ),
    labels: uploadBuffer(device, s.labels.slice(r0, r1)),
    weights: s.weights ? uploadBuffer(device, s.weights.slice(r0, r1)) : undefined,
    positions: createBuffer(device, 4 * n * K),
    gpair: createBuffer(device, 8 * n * K),
    qgpair: createBuffer(device, 8 * n * K),
    roots:
      K > 1
        ? uploadBuffer(
            device,
            Uint32Array.from({ length: n * K }, (_, e) => e % K),
          )
        : undefined,
    zeros: createBuffer(device, 4 * rowWords),
    rowList: createBuffer(device, 4 * n),
    rowArgs: createBuffer(device, ROW_ARGS_BYTES, STORAGE_RW | GPUBufferUsage.INDIRECT),
  }
}

function uploadFeatures(device: GPUDevice, s: BackendSetup, [f0, f1]: Range): FeatureChunk {
  const cutPtrs = s.cuts.cutPtrs.slice(f0, f1 + 1)
  const table = histogramChunks(cutPtrs)
  return {
    f0,
    f: f1 - f0,
    missOff: uploadBuffer(device, s.binned.missOff.slice(f0, f1)),
    cutPtrs: uploadBuffer(device, cutPtrs),
    wgChunks: uploadBuffer(device, table),
    wgCount: table.length / 2,
  }
}

/** Tile of rows [r0, r1) (r0 a multiple of 4: whole words) × features [f0, f1). */
function uploadTile(device: GPUDevice, s: BackendSetup, [r0, r1]: Range, [f0, f1]: Range): GPUBuffer {
  const m = s.binned
  const tw = Math.ceil((r1 - r0) / 4),
    w0 = r0 / 4
  if (w0 === 0 && tw === m.rowWords && f0 === 0 && f1 === m.features) return uploadBuffer(device, m.bins.slice())
  const tile = new Uint32Array((f1 - f0) * tw)
  for (let f = f0; f < f1; f++) {
    const src = f * m.rowWords + w0
    tile.set(m.bins.subarray(src, src + tw), (f - f0) * tw)
  }
  return uploadBuffer(device, tile)
}

function uploadValid(device: GPUDevice, s: BackendSetup, [v0, v1]: Range): ValidChunk {
  const cols = s.validColumns ?? []
  const v = v1 - v0,
    F = cols.length
  const features = new Float32Array(v * F)
  for (let f = 0; f < F; f++) for (let i = 0; i < v; i++) features[i * F + f] = cols[f][v0 + i]
  return {
    v0,
    v,
    features: uploadBuffer(device, features),
    margins: uploadBuffer(device, s.initMargins?.valid?.slice(v0, v1) ?? new Float32Array(v).fill(s.baseMargin)),
    leaf: createBuffer(device, 4 * v),
    identity: uploadBuffer(
      device,
      Uint32Array.from({ length: v }, (_, i) => i),
    ),
  }
}
