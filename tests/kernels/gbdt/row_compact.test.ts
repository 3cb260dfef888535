import { describe, expect, test } from 'vitest'
import { createBuffer, STORAGE_RW, uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { histogramBuildRowsCall } from '../../../src/kernels/gbdt/histogram_build.ts'
import { histogramBuild } from '../../../src/kernels/gbdt/histogram_build.ref.ts'
import {
  encodeRowCompact,
  ROW_ARGS_BYTES,
  rowCompactCalls,
  rowCountWords,
} from '../../../src/kernels/gbdt/row_compact.ts'
import { rowCompact, rowCompactArgs, rowSlot } from '../../../src/kernels/gbdt/row_compact.ref.ts'
import { ROW_UNUSED } from '../../../src/kernels/gbdt/layout.ts'
import { prepareKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, expectMatch, gpuCache, histogramCase, uploadCase } from './setup.ts'

const ARGS_USAGE = STORAGE_RW | GPUBufferUsage.INDIRECT

interface Compacted {
  rows: Uint32Array
  count: number
  args: Uint32Array
}

/** Runs the three passes; `count` starts dirty (encodeRowCompact must clear it), `rows` starts at 0xEE bytes. */
async function gpuCompact(
  positions: Uint32Array<ArrayBuffer>,
  nodeSlot: Int32Array<ArrayBuffer>,
  slots: number,
  n: number,
  groups: number,
  wg: number,
  RPI?: number,
): Promise<Compacted> {
  const cache = await gpuCache()
  const { device } = cache
  const bufs = {
    positions: uploadBuffer(device, positions),
    nodeSlot: uploadBuffer(device, nodeSlot),
    rows: uploadBuffer(device, new Uint32Array(Math.max(1, n)).fill(0xeeeeeeee)),
    count: uploadBuffer(device, new Uint32Array(rowCountWords(slots)).fill(77)),
    args: createBuffer(device, ROW_ARGS_BYTES, ARGS_USAGE),
  }
  try {
    await checked(device, async () => {
      const enc = device.createCommandEncoder()
      const free = encodeRowCompact(cache, enc, bufs, { n, groups, wg, slots }, { RPI })
      device.queue.submit([enc.finish()])
      await device.queue.onSubmittedWorkDone()
      free()
    })
    const count = (await readBuffer(device, bufs.count, Uint32Array, 1))[0]
    return {
      rows: await readBuffer(device, bufs.rows, Uint32Array, Math.max(1, n)),
      count,
      args: await readBuffer(device, bufs.args, Uint32Array, 3),
    }
  } finally {
    Object.values(bufs).forEach(b => b.destroy())
  }
}

/**
 * Random positions over `nodes` nodes (1 in 8 unused, some past nodeSlot), in runs of 1–4 rows of
 * one node; every other node built, into slots in reverse order. Slots = ceil(nodes / 2).
 */
function randomCase(
  seed: number,
  n: number,
  nodes: number,
): { positions: Uint32Array<ArrayBuffer>; nodeSlot: Int32Array<ArrayBuffer>; slots: number } {
  const rng = new Rng(seed)
  const positions = new Uint32Array(n)
  for (let i = 0; i < n; ) {
    const p = rng.int(8) === 0 ? ROW_UNUSED : rng.int(nodes + 1)
    for (let r = 1 + rng.int(4); r > 0 && i < n; r--) positions[i++] = p
  }
  const slots = Math.ceil(nodes / 2)
  const nodeSlot = Int32Array.from({ length: nodes }, (_, p) => (p % 2 === 0 ? slots - 1 - p / 2 : -1))
  return { positions, nodeSlot, slots }
}

async function expectParity(seed: number, n: number, what: string, groups = 1, wg = 256, RPI?: number): Promise<void> {
  const { positions, nodeSlot, slots } = randomCase(seed, n, 6)
  const want = rowCompact(positions, nodeSlot, slots, n)
  const got = await gpuCompact(positions, nodeSlot, slots, n, groups, wg, RPI)
  expect(got.count, `${what} count`).toBe(want.length)
  // Slot groups must match exactly; rows within a group land in atomic order (sorted here).
  const list = Array.from(got.rows.slice(0, got.count))
  const slotOf = (i: number): number => rowSlot(positions, nodeSlot, slots, i)
  expect(list.map(slotOf), `${what} slot groups`).toEqual(Array.from(want, slotOf))
  const sorted = Uint32Array.from(list.sort((a, b) => slotOf(a) - slotOf(b) || a - b))
  expectMatch(compareArrays(sorted, want), `${what} rows`)
  expectMatch(compareArrays(got.args, Uint32Array.from(rowCompactArgs(want.length, groups, wg))), `${what} args`)
}

describe('row_compact matches its reference', () => {
  test.each([0, 1, 15, 17, 255, 257, 1000, 65_537])('n = %i', async n => {
    await expectParity(n + 1, n, `row_compact n=${n}`)
  })

  test.each([1, 3, 64])('rows per invocation RPI = %i', async RPI => {
    await expectParity(RPI, 2001, `row_compact RPI=${RPI}`, 2, 64, RPI)
  })

  test('arguments past 65535 workgroups fold into y', async () => {
    const n = 5000,
      groups = 100,
      wg = 1
    const { positions, nodeSlot, slots } = randomCase(9, n, 2)
    const got = await gpuCompact(positions, nodeSlot, slots, n, groups, wg)
    const want = rowCompactArgs(rowCompact(positions, nodeSlot, slots, n).length, groups, wg)
    expect(want[1]).toBeGreaterThan(1)
    expect(Array.from(got.args)).toEqual(want)
  })

  test('no built node: empty list, zero workgroups', async () => {
    const got = await gpuCompact(new Uint32Array(300), Int32Array.of(-1), 1, 300, 1, 256)
    expect(got.count).toBe(0)
    expect(Array.from(got.args)).toEqual([0, 0, 0])
  })

  test('bad shapes are refused naming the field', () => {
    const b = {} as never
    expect(() => rowCompactCalls(b, { n: -1, groups: 1, wg: 1, slots: 1 })).toThrow(/n must be/)
    expect(() => rowCompactCalls(b, { n: 1, groups: 1, wg: 0, slots: 1 })).toThrow(/wg must be/)
    expect(() => rowCompactCalls(b, { n: 1, groups: 1, wg: 1, slots: 1.5 })).toThrow(/slots must be/)
    expect(() => rowCompactCalls(b, { n: 1, groups: 1, wg: 1, slots: 1 }, { RPI: 0 })).toThrow(/RPI/)
  })
})

describe('row_compact → indirect histogram_build_rows equals histogram_build over all rows', () => {
  test.each([0, 1, 1000, 4099])('n = %i, 5 features, 3 slots', async n => {
    const c = histogramCase(n + 5, n, { widths: [5, 256, 3, 17, 1], missOff: [1, 0, 1, 0, 1], slots: 3 })
    const cache = await gpuCache()
    const { device } = cache
    const s = c.shape,
      len = s.slots * s.b * 4,
      FPI = 2,
      WG = 64
    const start = Uint32Array.from({ length: len }, (_, k) => (k * 2654435761) >>> 0)
    const want = start.slice()
    histogramBuild(c.bins, c.missOff, c.cutPtrs, c.qgpair, c.positions, c.nodeSlot, want, s.n, s.f, s.rowWords, s.b)
    const bufs = uploadCase(device, c, start)
    // An indirect dispatch is validated even at 0 workgroups: vec2 qgpair needs ≥ 8 bytes.
    const qgpair = n === 0 ? createBuffer(device, 8) : bufs.qgpair
    const extra = {
      rows: createBuffer(device, 4 * n),
      count: createBuffer(device, 4 * rowCountWords(s.slots)),
      args: createBuffer(device, ROW_ARGS_BYTES, ARGS_USAGE),
    }
    try {
      await checked(device, async () => {
        const enc = device.createCommandEncoder()
        const free = encodeRowCompact(
          cache,
          enc,
          { positions: bufs.positions, nodeSlot: bufs.nodeSlot, ...extra },
          { n, groups: Math.ceil(s.f / FPI), wg: WG, slots: s.slots },
        )
        const k = prepareKernel(
          cache,
          histogramBuildRowsCall({ ...bufs, qgpair, rows: extra.rows, rowCount: extra.count }, s, { FPI, WG }),
        )
        const pass = enc.beginComputePass()
        pass.setPipeline(k.pipeline)
        pass.setBindGroup(0, k.bindGroup)
        pass.dispatchWorkgroupsIndirect(extra.args, 0)
        pass.end()
        device.queue.submit([enc.finish()])
        await device.queue.onSubmittedWorkDone()
        free()
        k.destroy()
      })
      expectMatch(compareArrays(await readBuffer(device, bufs.hist, Uint32Array, len), want), `compact+rows n=${n}`)
    } finally {
      bufs.destroy()
      if (n === 0) qgpair.destroy()
      Object.values(extra).forEach(b => b.destroy())
    }
  })
})
