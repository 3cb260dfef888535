import { describe, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { rowPartitionCall } from '../../../src/kernels/gbdt/row_partition.ts'
import { rowPartition } from '../../../src/kernels/gbdt/row_partition.ref.ts'
import { CAT_WORDS, NO_NODE, SPLIT_TABLE_WORDS } from '../../../src/kernels/gbdt/layout.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { randomBins } from '../../unit/gbdt/tree-fixture.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from '../bench/setup.ts'

/**
 * Split table of `nodes` ids: about a third not split; splitBin in [−1, bins − 1); with
 * `categorical`, every other node a categorical split with a random set of bins going right.
 */
function randomSplits(
  rng: Rng,
  nodes: number,
  features: number,
  bins: number,
  categorical = false,
): Uint32Array<ArrayBuffer> {
  const t = new Uint32Array(nodes * SPLIT_TABLE_WORDS)
  for (let k = 0; k < nodes; k++) {
    const split = rng.int(3) > 0
    t.set(
      [
        rng.int(features),
        (rng.int(bins + 1) - 1) >>> 0,
        rng.int(2),
        split ? nodes + 2 * k : NO_NODE,
        nodes + 2 * k + 1,
      ],
      k * SPLIT_TABLE_WORDS,
    )
    if (categorical && k % 2 === 0) {
      t[k * SPLIT_TABLE_WORDS + 5] = 1
      for (let w = 0; w < CAT_WORDS; w++) t[k * SPLIT_TABLE_WORDS + 6 + w] = rng.int(2 ** 32)
    }
  }
  return t
}

async function check(
  seed: number,
  rows: number,
  features: number,
  bins: number,
  WG?: number,
  missingRate?: number,
  categorical = false,
): Promise<void> {
  const rng = new Rng(seed)
  const m = randomBins(rng, rows, features, bins, missingRate)
  const nodes = 7
  const splits = randomSplits(rng, nodes, features, bins, categorical)
  // Some rows excluded, some at node ids beyond the table (left alone).
  const positions = Uint32Array.from({ length: rows }, () => (rng.int(10) === 0 ? NO_NODE : rng.int(nodes + 1)))
  const want = positions.slice()
  rowPartition(m.bins, m.missOff, splits, want, { rows, rowWords: m.rowWords, nodes })
  const cache = await gpuCache()
  const { device } = cache
  const b = {
    bins: uploadBuffer(device, m.bins),
    missOff: uploadBuffer(device, m.missOff),
    splits: uploadBuffer(device, splits),
    positions: uploadBuffer(device, positions),
  }
  try {
    await checked(device, () => runKernel(cache, rowPartitionCall(b, { rows, rowWords: m.rowWords, nodes }, { WG })))
    expectMatch(
      compareArrays(await readBuffer(device, b.positions, Uint32Array, rows), want),
      `row_partition rows=${rows} F=${features}`,
    )
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

describe('row_partition matches its reference exactly', () => {
  test.each(EDGE_SIZES)('rows = %i, 5 features, 256 bins', rows => check(rows + 1, rows, 5, 256))
  test('one feature, 3 bins, WG = 64', () => check(7, 1001, 1, 3, 64))
  test('all-missing features (missing rate 1)', () => check(9, 333, 4, 255, undefined, 1))
  test('categorical splits: bins in the set right, others left, missing by default', async () => {
    await check(11, 1537, 3, 256, undefined, 0.2, true)
    await check(12, 1, 2, 9, 64, 0.5, true)
  })
})
