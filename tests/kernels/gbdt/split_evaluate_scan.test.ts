import { describe, expect, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { splitEvaluateScanCall } from '../../../src/kernels/gbdt/split_evaluate_scan.ts'
import { splitEvaluateScan } from '../../../src/kernels/gbdt/split_evaluate_scan.ref.ts'
import { splitReduceCall } from '../../../src/kernels/gbdt/split_reduce.ts'
import { decodeSplit, SPLIT_WORDS } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import type { SplitParams } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { checked, gpuCache } from '../bench/setup.ts'
import type { CaseOptions, SplitCase } from './split-fixture.ts'
import { checkSplits, randomCase } from './split-fixture.ts'

/** Runs split_evaluate_scan (and split_reduce when `reduce`); returns the records or the per-node output. */
async function gpuScan(c: SplitCase, p: SplitParams, reduce: boolean, WG?: number): Promise<Uint32Array> {
  const cache = await gpuCache()
  const { device } = cache
  const { nodes, features } = c.shape
  const b = {
    hist: uploadBuffer(device, c.hist), cutPtrs: uploadBuffer(device, c.cutPtrs), featureMask: uploadBuffer(device, c.featureMask),
    nodeSlots: uploadBuffer(device, c.nodeSlots), nodeSums: uploadBuffer(device, c.nodeSums), scales: uploadBuffer(device, c.scales),
    featureBest: createBuffer(device, nodes * features * SPLIT_WORDS * 4), out: createBuffer(device, nodes * SPLIT_WORDS * 4),
  }
  const maxBins = Math.max(0, ...Array.from({ length: features }, (_, f) => c.cutPtrs[f + 1] - c.cutPtrs[f]))
  try {
    await checked(device, () => runKernel(cache, splitEvaluateScanCall(b, { ...c.shape, maxBins }, p, { WG })))
    if (!reduce) return await readBuffer(device, b.featureBest, Uint32Array, nodes * features * SPLIT_WORDS)
    await checked(device, () => runKernel(cache, splitReduceCall(b, c.shape)))
    return await readBuffer(device, b.out, Uint32Array, nodes * SPLIT_WORDS)
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

function check(seed: number, o: CaseOptions, p: SplitParams, WG?: number): Promise<{ exact: number; splits: number }> {
  return checkSplits(seed, o, p, (c, pp) => gpuScan(c, pp, true, WG))
}

const P: SplitParams = { lambda: 1, alpha: 0, minChildWeight: 1 }

describe('split_evaluate_scan + split_reduce match split_evaluate\'s reference', () => {
  test.each([0, 1, 7, 33])('%i nodes, 9 features ≤ 256 bins', async nodes => {
    const r = await check(nodes + 100, { rows: 1500, nodes, features: 9, maxBins: 256 }, P)
    if (nodes > 0) expect(r.splits).toBeGreaterThan(0)
  })
  test('one feature with 256 bins', () => check(2, { rows: 800, nodes: 5, features: 1, maxBins: 256 }, P))
  test('70 features of ≤ 40 bins, WG = 64', () => check(3, { rows: 600, nodes: 4, features: 70, maxBins: 40 }, P, 64))
  test('all-missing features', () => check(4, { rows: 700, nodes: 6, features: 5, maxBins: 255, missingRate: 1 }, P))
  test('per-node feature masks (colsample_bynode)', () => check(5, { rows: 900, nodes: 8, features: 12, maxBins: 64, maskPerNode: true, maskRate: 0.5 }, P))
  test('lambda 0, alpha 5, min_child_weight 0', () => check(6, { rows: 900, nodes: 6, features: 6, maxBins: 128 }, { lambda: 0, alpha: 5, minChildWeight: 0 }))
  test('min_child_weight above every node weight: no splits', async () => {
    const r = await check(8, { rows: 500, nodes: 5, features: 4, maxBins: 32 }, { lambda: 1, alpha: 0, minChildWeight: 1e6 })
    expect(r.splits).toBe(0)
  })
  test('a feature with more bins than WG is refused', async () => {
    const c = randomCase(9, { rows: 50, nodes: 1, features: 2, maxBins: 100 })
    await expect(gpuScan(c, P, true, 64)).rejects.toThrow(/more than WG = 64/)
  })
})

describe('split_evaluate_scan per-feature records match the reference', () => {
  test('gains within tolerance, "no split" records identical', async () => {
    const c = randomCase(10, { rows: 1200, nodes: 6, features: 8, maxBins: 200, maskRate: 0.25 })
    const want = new Uint32Array(6 * 8 * SPLIT_WORDS)
    splitEvaluateScan(c.hist, c.cutPtrs, c.featureMask, c.nodeSlots, c.nodeSums, c.scales, want, c.shape, P)
    const got = await gpuScan(c, P, false)
    let some = 0
    for (let r = 0; r < 6 * 8; r++) {
      const g = decodeSplit(got, r), w = decodeSplit(want, r)
      expect(g.feature, `record ${r}`).toBe(w.feature)
      if (w.feature < 0) { expect(g.gain).toBe(-Infinity); continue }
      some++
      expect(Math.abs(g.gain - w.gain), `record ${r}: gain ${g.gain} vs ${w.gain}`).toBeLessThanOrEqual(1e-4 * Math.abs(w.gain) + 1e-6)
    }
    expect(some).toBeGreaterThan(10)
  })
})
