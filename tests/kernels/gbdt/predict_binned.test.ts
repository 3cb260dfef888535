import { describe, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { predictBinnedCall } from '../../../src/kernels/gbdt/predict_binned.ts'
import { packTrees } from '../../../src/kernels/gbdt/predict.ref.ts'
import { predictBinned } from '../../../src/kernels/gbdt/predict_binned.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { randomBins, randomTree } from '../../unit/gbdt/tree-fixture.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from '../bench/setup.ts'

async function check(seed: number, rows: number, features: number, bins: number, trees: number, depth: number, missingRate = 0.1, WG?: number): Promise<void> {
  const rng = new Rng(seed)
  const m = randomBins(rng, rows, features, bins, missingRate)
  const p = packTrees(Array.from({ length: trees }, () => randomTree(rng, features, depth, bins)))
  const margins = rng.floats(rows, -1, 1)
  const shape = { rows, rowWords: m.rowWords, trees, maxDepth: p.maxDepth }
  const want = margins.slice()
  predictBinned(m.bins, m.missOff, p.nodes, p.treeOffsets, want, shape)
  const cache = await gpuCache()
  const { device } = cache
  const b = {
    bins: uploadBuffer(device, m.bins), missOff: uploadBuffer(device, m.missOff), nodes: uploadBuffer(device, p.nodes),
    treeOffsets: uploadBuffer(device, p.treeOffsets), margins: uploadBuffer(device, margins),
  }
  try {
    await checked(device, () => runKernel(cache, predictBinnedCall(b, shape, { WG })))
    expectMatch(compareArrays(await readBuffer(device, b.margins, Float32Array, rows), want), `predict_binned rows=${rows}`)
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

describe('predict_binned matches its reference exactly', () => {
  test.each(EDGE_SIZES)('rows = %i, 10 trees, 6 features × 256 bins', rows => check(rows, rows, 6, 256, 10, 6))
  test('one feature, 2 bins, WG = 32', () => check(11, 999, 1, 2, 5, 3, 0.1, 32))
  test('all-missing features', () => check(12, 300, 3, 255, 4, 5, 1))
})
