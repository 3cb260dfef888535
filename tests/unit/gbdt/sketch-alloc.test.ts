/**
 * The sketch allocates (almost) nothing per chunk: a page holding a large heap pays a full
 * garbage collection for every few tens of MB of new typed arrays, and a sketch that made new
 * summaries for every chunk, prune and merge (~80 bytes per value) took 31 s instead of 5 s at
 * 1M × 28 in the page (bench/README.md, quantisation 2026-12-03). Counted here, not timed: the
 * bytes of typed arrays constructed while sketching, through counting stand-ins for the typed
 * array constructors (views and subarrays allocate no memory and are not counted). Measured:
 * ~2 bytes per value now (each feature's result and its cuts), 105 (buildCuts) and 52 (mergeParts)
 * before.
 */
import { afterEach, expect, it, vi } from 'vitest'
import { buildCuts } from '../../../src/models/gbdt/cuts.ts'
import { chunkParts, mergeParts, sketchPlan } from '../../../src/models/gbdt/sketch.ts'
import { Rng } from '../../../src/util/rng.ts'

const TYPES = ['Float64Array', 'Float32Array', 'Uint32Array', 'Uint16Array', 'Uint8Array', 'Int32Array'] as const

/** Bytes of typed arrays constructed (with their own memory) while `run` runs. */
function allocatedBytes(run: () => void): number {
  let bytes = 0
  for (const name of TYPES) {
    const Real = globalThis[name]
    const counting = new Proxy(Real, {
      construct(target, args, newTarget) {
        const made = Reflect.construct(target, args, newTarget) as { byteLength: number }
        if (!(args[0] instanceof ArrayBuffer)) bytes += made.byteLength
        return made
      },
    })
    vi.stubGlobal(name, counting)
  }
  try {
    run()
  } finally {
    vi.unstubAllGlobals()
  }
  return bytes
}

afterEach(() => vi.unstubAllGlobals())

/** F columns of N distinct-ish float32 values, 3% missing (the suite's data shape). */
function columns(F: number, N: number, seed: number): Float32Array[] {
  const rng = new Rng(seed)
  return Array.from({ length: F }, () => rng.floats(N, -3, 3).map(v => (rng.next() < 0.03 ? NaN : v)))
}

const N = 200_000,
  F = 4,
  MAX_BIN = 256

it('buildCuts allocates under 4 bytes per value once its scratch has grown (not a summary per chunk)', () => {
  const cols = columns(F, N, 1)
  expect(sketchPlan(N, MAX_BIN).chunkRows * 5).toBeLessThan(N) // many chunks per column
  buildCuts(cols, MAX_BIN) // grows this thread's scratch
  const bytes = allocatedBytes(() => buildCuts(cols, MAX_BIN))
  expect(bytes / (N * F)).toBeLessThan(4)
})

it('mergeParts of two workers’ parts allocates under 4 bytes per value (the page’s side of the loader path)', () => {
  const cols = columns(F, N, 2)
  const cut = Math.floor(N / 2) + 123 // inside a chunk: that chunk's rows are joined on the merging side
  const parts = cols.map(c => [
    chunkParts(c.subarray(0, cut), undefined, 0, N, MAX_BIN),
    chunkParts(c.subarray(cut), undefined, cut, N, MAX_BIN),
  ])
  for (const p of parts) mergeParts(p, N, MAX_BIN)
  const bytes = allocatedBytes(() => {
    for (const p of parts) mergeParts(p, N, MAX_BIN)
  })
  expect(bytes / (N * F)).toBeLessThan(4)
})
