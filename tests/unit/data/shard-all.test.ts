/** `mode: 'all'`: K shards hold every row of the epoch exactly once, sizes ⌊N/K⌋ or one more, contiguous in order. */
import { expect, test } from 'vitest'
import { rankSplit, resolveAssign } from '../../../src/data/assign.ts'

test.each([
  [0, 3],
  [1, 3],
  [10, 3],
  [11, 4],
  [12, 4],
  [5, 7],
])('%i rows over %i shards: every row once', (rows, k) => {
  let next = 0
  for (let r = 0; r < k; r++) {
    const s = rankSplit(rows, k, r, 'all')
    expect(s.offset).toBe(next)
    expect(s.length === Math.floor(rows / k) || s.length === Math.ceil(rows / k)).toBe(true)
    expect(s.rowsDropped + s.rowsPadded).toBe(0)
    next += s.length
  }
  expect(next).toBe(rows)
})

test('mode all is accepted; an unknown mode names the three', () => {
  expect(resolveAssign({ epoch: 0, worldSize: 2, rank: 1, mode: 'all' }).mode).toBe('all')
  expect(() => resolveAssign({ epoch: 0, worldSize: 2, rank: 1, mode: 'x' as 'all' })).toThrow(
    /'drop_last', 'pad' or 'all'/,
  )
})
