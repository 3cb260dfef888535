/** Bounded concurrency for async work: the reader's commit and footer fetches use it. */

/**
 * Runs `fn` over `items` with at most `limit` calls in flight; results in item order. The first
 * failure rejects and no further item is started (calls already in flight run to their end).
 */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  async function worker(): Promise<void> {
    while (next < items.length && !failed) {
      const i = next++
      try {
        results[i] = await fn(items[i])
      } catch (e) {
        failed = true
        throw e
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}
