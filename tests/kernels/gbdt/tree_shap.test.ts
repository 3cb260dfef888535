import { describe, expect, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { NODE_WORDS, packCovers, packTrees } from '../../../src/kernels/gbdt/layout.ts'
import { TREE_SHAP_MAX_DEPTH, treeShapCall } from '../../../src/kernels/gbdt/tree_shap.ts'
import { treeShap } from '../../../src/kernels/gbdt/tree_shap.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import type { Tree } from '../../../src/models/gbdt/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { chainTree, shapRows, shapTree } from '../../unit/gbdt/shap-fixture.ts'
import { makeTree } from '../../unit/gbdt/tree-fixture.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'

/** Kernel and reference on the same rows; f32 rounding differs (the kernel rounds every step), so 1e-5. */
async function check(
  seed: number,
  rows: number,
  features: number,
  catFeatures: number,
  trees: Tree[],
  base: number,
  WG?: number,
): Promise<void> {
  const x = shapRows(new Rng(seed), rows, features, catFeatures)
  const p = packTrees(trees),
    covers = packCovers(trees)
  const shape = { rows, features, trees: trees.length, nodes: p.nodes.length / NODE_WORDS, maxDepth: p.maxDepth }
  const want = new Float32Array((features + 1) * rows)
  treeShap(x, p.nodes, p.catBits, p.treeOffsets, covers, want, shape, base)
  const cache = await gpuCache()
  const { device } = cache
  const b = {
    features: uploadBuffer(device, x),
    nodes: uploadBuffer(device, p.nodes),
    catBits: uploadBuffer(device, p.catBits),
    treeOffsets: uploadBuffer(device, p.treeOffsets),
    covers: uploadBuffer(device, covers),
    out: createBuffer(device, want.length * 4),
    // Scratch: starts as garbage, the kernel clears what it uses.
    treePhi: uploadBuffer(device, new Float32Array(features * rows).fill(7)),
  }
  try {
    await checked(device, () => runKernel(cache, treeShapCall(b, shape, base, { WG })))
    expectMatch(
      compareArrays(await readBuffer(device, b.out, Float32Array, want.length), want, 1e-5),
      `tree_shap rows=${rows} trees=${trees.length}`,
    )
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

function forest(seed: number, count: number, features: number, depth: number, catFeatures: number): Tree[] {
  const rng = new Rng(seed)
  return Array.from({ length: count }, () => shapTree(rng, features, depth, catFeatures))
}

describe('tree_shap matches its reference within 1e-5', () => {
  test.each([0, 1, 63, 257, 1000])('rows = %i, 12 numeric and categorical trees of depth ≤ 6, 7 features', rows =>
    check(rows, rows, 7, 3, forest(rows, 12, 7, 6, 3), 0.25),
  )
  test('one feature, stumps and single leaves, WG = 32', () => {
    const leaf = makeTree([[-1, -1, 0, 0.125, -1, 0]])
    leaf.sumHessian[0] = 2
    return check(3, 100, 1, 0, [...forest(3, 6, 1, 1, 0), leaf], -0.5, 32)
  })
  test('no trees: the bias is the base margin', () => check(4, 70, 3, 0, [], 1.5))
  test('a depth-16 path with repeated features and a bushy depth-10 tree', () => {
    const rng = new Rng(5)
    return check(5, 130, 4, 1, [chainTree(rng, 4, TREE_SHAP_MAX_DEPTH), shapTree(rng, 4, 10, 1)], 0)
  })
  test('trees deeper than the kernel holds are refused naming the depth', () => {
    const p = packTrees([chainTree(new Rng(6), 2, TREE_SHAP_MAX_DEPTH + 1)])
    const none = {} as GPUBuffer
    const buffers = {
      features: none,
      nodes: none,
      catBits: none,
      treeOffsets: none,
      covers: none,
      out: none,
      treePhi: none,
    }
    expect(() => treeShapCall(buffers, { rows: 1, features: 2, trees: 1, nodes: 35, maxDepth: p.maxDepth }, 0)).toThrow(
      /depth 17 exceed the kernel's limit of 16/,
    )
  })
})
