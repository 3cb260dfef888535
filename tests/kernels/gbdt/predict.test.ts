import { describe, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { predictCall } from '../../../src/kernels/gbdt/predict.ts'
import { predict } from '../../../src/kernels/gbdt/predict.ref.ts'
import { packTrees } from '../../../src/kernels/gbdt/layout.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import type { Tree } from '../../../src/models/gbdt/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { categorise, makeTree, randomCodes, randomTree } from '../../unit/gbdt/tree-fixture.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from '../bench/setup.ts'

/** Features in [−1, 1) with ~10 % NaN, some exactly on a split condition of tree 0's root. */
function randomFeatures(rng: Rng, rows: number, features: number, trees: Tree[]): Float32Array<ArrayBuffer> {
  const x = rng.floats(rows * features, -1, 1)
  const onCut = trees[0]?.splitCondition[0] ?? 0
  for (let k = 0; k < x.length; k++) {
    const r = rng.int(20)
    if (r < 2) x[k] = NaN
    else if (r === 2) x[k] = onCut
  }
  return x
}

async function check(
  seed: number,
  rows: number,
  features: number,
  trees: Tree[],
  base: number,
  WG?: number,
  codes = false,
): Promise<void> {
  const rng = new Rng(seed)
  const x = codes ? randomCodes(rng, rows, features, 70) : randomFeatures(rng, rows, features, trees)
  const p = packTrees(trees)
  const shape = { rows, features, trees: trees.length, maxDepth: p.maxDepth }
  const want = new Float32Array(rows)
  predict(x, p.nodes, p.catBits, p.treeOffsets, want, shape, base)
  const cache = await gpuCache()
  const { device } = cache
  const b = {
    features: uploadBuffer(device, x),
    nodes: uploadBuffer(device, p.nodes),
    catBits: uploadBuffer(device, p.catBits),
    treeOffsets: uploadBuffer(device, p.treeOffsets),
    out: createBuffer(device, rows * 4),
  }
  try {
    await checked(device, () => runKernel(cache, predictCall(b, shape, base, { WG })))
    // Same comparisons and the same f32 adds in tree order: bit-identical.
    expectMatch(
      compareArrays(await readBuffer(device, b.out, Float32Array, rows), want),
      `predict rows=${rows} trees=${trees.length}`,
    )
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

function forest(seed: number, count: number, features: number, depth: number): Tree[] {
  const rng = new Rng(seed)
  return Array.from({ length: count }, () => randomTree(rng, features, depth, 256))
}

describe('predict matches its reference exactly', () => {
  test.each(EDGE_SIZES)('rows = %i, 20 trees of depth ≤ 6, 7 features', rows =>
    check(rows, rows, 7, forest(rows, 20, 7, 6), 0.25),
  )
  test('one feature, stumps and single leaves, WG = 64', () => check(3, 777, 1, forest(3, 9, 1, 1), -0.5, 64))
  test('no trees: base margin only', () => check(4, 100, 3, [], 1.5))
  test.each([0, 1, 129])('categorical nodes (sets over 70 codes, 3 bitset words), rows = %i', rows => {
    const rng = new Rng(rows + 11)
    const trees = Array.from({ length: 12 }, () => categorise(rng, randomTree(rng, 5, 5, 70), 5, 70))
    return check(rows + 12, rows, 5, trees, 0.5, undefined, true)
  })
  test('deep tree (depth 12) and a leaf-only tree', () =>
    check(5, 513, 4, [...forest(5, 2, 4, 12), makeTree([[-1, -1, 0, 0.125, -1, 0]])], 0))
})
