/** embedding_bag_forward vs its reference (embedding-bag.fixtures.ts) on random and edge-sized bags. */
import { describe, test } from 'vitest'
import { checkBag } from './embedding-bag.fixtures.ts'

describe('embedding_bag_forward matches its reference', () => {
  test.each([
    [1, 1, 1, 3],
    [1, 2, 16, 5],
    [64, 3, 16, 8],
    [257, 2, 17, 4],
    [1000, 1, 3, 12],
  ])('B = %i, K = %i, D = %i, lengths ≤ %i', (B, K, D, maxLen) => checkBag('forward', B, K, D, maxLen))
  test('every bag empty (M = 0)', () => checkBag('forward', 40, 2, 8, 0))
  test('one huge bag (5000 items) among short ones', () => checkBag('forward', 33, 2, 5, 3, 5000))
})
