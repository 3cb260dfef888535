import { describe, expect, test } from 'vitest'
import { createBuffer, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { splitReduceCall } from '../../../src/kernels/gbdt/split_reduce.ts'
import { splitReduce } from '../../../src/kernels/gbdt/split_reduce.ref.ts'
import { NO_FEATURE, SPLIT_WORDS } from '../../../src/kernels/gbdt/split_evaluate.ref.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache } from '../bench/setup.ts'

/** Random records: ~30 % "no split"; gains drawn from 4 values so equal gains (ties) are common. */
function randomRecords(seed: number, nodes: number, features: number): Uint32Array<ArrayBuffer> {
  const rng = new Rng(seed)
  const rec = new Uint32Array(nodes * features * SPLIT_WORDS), f32 = new Float32Array(rec.buffer)
  for (let r = 0; r < nodes * features; r++) {
    const o = r * SPLIT_WORDS
    for (let k = 2; k < SPLIT_WORDS; k++) rec[o + k] = rng.nextU32()
    if (rng.next() < 0.3) { f32[o] = -Infinity; rec[o + 1] = NO_FEATURE; rec.fill(0, o + 2, o + SPLIT_WORDS); continue }
    f32[o] = [0.5, 1.25, 3, 3.0000002][rng.int(4)]
    rec[o + 1] = r % features
  }
  return rec
}

async function check(seed: number, nodes: number, features: number, WG?: number): Promise<Uint32Array> {
  const records = randomRecords(seed, nodes, features)
  const want = new Uint32Array(nodes * SPLIT_WORDS)
  splitReduce(records, want, nodes, features)
  const cache = await gpuCache()
  const { device } = cache
  const b = { featureBest: uploadBuffer(device, records), out: createBuffer(device, nodes * SPLIT_WORDS * 4) }
  try {
    await checked(device, () => runKernel(cache, splitReduceCall(b, { nodes, features }, { WG })))
    expectMatch(compareArrays(await readBuffer(device, b.out, Uint32Array, nodes * SPLIT_WORDS), want), `split_reduce M=${nodes} F=${features}`)
    return want
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

describe('split_reduce matches its reference exactly', () => {
  test.each([[0, 5], [1, 1], [63, 7], [200, 28]])('M = %i, F = %i', async (m, f) => { await check(m + f, m, f) })
  test('WG = 16 over 100 nodes', async () => { await check(1, 100, 3, 16) })
  test('equal gains keep the smaller feature', () => {
    const rec = new Uint32Array(3 * SPLIT_WORDS), f32 = new Float32Array(rec.buffer)
    f32[0] = -Infinity; rec[1] = NO_FEATURE
    f32[16] = 2; rec[17] = 1
    f32[32] = 2; rec[33] = 2
    const out = new Uint32Array(SPLIT_WORDS)
    splitReduce(rec, out, 1, 3)
    expect(out[1]).toBe(1)
  })
})
