/** Bounded waits: nothing the page or the CLI awaits may hang forever. */

/**
 * Resolves like `p`, or rejects with Error(`message`) after `ms` milliseconds. The work behind
 * `p` is not cancelled (a promise cannot be); callers ignore its late result.
 */
export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}

/**
 * Settles like `p` if it settles within `ms` milliseconds, else resolves to undefined: a short
 * grace wait, e.g. for a device's `lost` promise that settles a moment after the error a lost
 * device caused.
 */
export function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const grace = new Promise<undefined>(resolve => {
    timer = setTimeout(() => resolve(undefined), ms)
  })
  return Promise.race([p, grace]).finally(() => clearTimeout(timer))
}
