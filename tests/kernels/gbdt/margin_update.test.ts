import { describe, test } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import { marginUpdateCall } from '../../../src/kernels/gbdt/margin_update.ts'
import { marginUpdate } from '../../../src/kernels/gbdt/margin_update.ref.ts'
import { NO_NODE } from '../../../src/kernels/gbdt/layout.ts'
import { runKernel } from '../../../src/kernels/runner.ts'
import { Rng } from '../../../src/util/rng.ts'
import { compareArrays } from '../../../src/util/tolerance.ts'
import { checked, EDGE_SIZES, expectMatch, gpuCache } from '../bench/setup.ts'

async function check(rows: number, nodes: number, WG?: number): Promise<void> {
  const rng = new Rng(rows + nodes)
  const positions = Uint32Array.from({ length: rows }, () => (rng.int(8) === 0 ? NO_NODE : rng.int(nodes + 2)))
  const leafValue = rng.floats(nodes, -1, 1),
    margins = rng.floats(rows, -5, 5)
  const want = margins.slice()
  marginUpdate(positions, leafValue, want, rows, nodes)
  const cache = await gpuCache()
  const { device } = cache
  const b = {
    positions: uploadBuffer(device, positions),
    leafValue: uploadBuffer(device, leafValue),
    margins: uploadBuffer(device, margins),
  }
  try {
    await checked(device, () => runKernel(cache, marginUpdateCall(b, { rows, nodes }, { WG })))
    // One correctly rounded f32 add per row on both sides: bit-identical.
    expectMatch(
      compareArrays(await readBuffer(device, b.margins, Float32Array, rows), want),
      `margin_update rows=${rows}`,
    )
  } finally {
    Object.values(b).forEach(x => x.destroy())
  }
}

describe('margin_update matches its reference exactly', () => {
  test.each(EDGE_SIZES)('rows = %i, 63 nodes', rows => check(rows, 63))
  test('one node, WG = 32', () => check(1000, 1, 32))
})
