import { describe, expect, it } from 'vitest'
import { within, withTimeout } from '../../src/util/deadline.ts'

describe('bounded waits', () => {
  it('within: the value when p settles in time, undefined after the grace period, a rejection passed on', async () => {
    expect(await within(Promise.resolve('lost: destroyed'), 50)).toBe('lost: destroyed')
    expect(await within(new Promise<string>(() => {}), 20)).toBeUndefined()
    await expect(within(Promise.reject(new Error('boom')), 50)).rejects.toThrow('boom')
  })

  it('withTimeout: rejects with the message after ms', async () => {
    await expect(withTimeout(new Promise(() => {}), 20, 'no answer')).rejects.toThrow('no answer')
    expect(await withTimeout(Promise.resolve(3), 50, 'x')).toBe(3)
  })
})
