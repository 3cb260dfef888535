/**
 * Which credentials signed the recent requests of each URL, so that a rejection can be blamed on
 * the right credentials.
 *
 * Why: `UrlResolver.rejected()` is told the stable URL of a refused request, not which signed
 * request it was. Around a renewal, answers to requests signed with the old credentials keep
 * arriving after the new ones are in place; blaming those on the new credentials would renew
 * again for nothing, or even conclude that the fresh credentials were refused. Each URL keeps the
 * generations of its recent signings; a rejection is blamed on the oldest one still open (the old
 * credentials, if any request still used them), and consumes it. Successful answers are never
 * reported, so an entry stays open until it is older than `settleMs`, past which its answer has
 * come or the request has timed out.
 */

/** One signing of a URL: which credential generation, and when (ms since the epoch). */
interface Signing {
  generation: number
  at: number
}

/** Signings kept before a sweep drops the settled ones of every URL. */
const SWEEP_EVERY = 1024

/** Recent signings per URL, blamed oldest first; bounded by `settleMs`. */
export class SigningLedger {
  private readonly byUrl = new Map<string, Signing[]>()
  private sinceSweep = 0

  /**
   * @param settleMs how long (ms) an answer to a signed request may still come: the reader's
   *   request timeout with a margin
   * @param now clock, ms since the epoch
   */
  constructor(
    private readonly settleMs = 30_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records that `url` was just signed with credentials of `generation`. */
  signed(url: string, generation: number): void {
    const at = this.now()
    const open = this.open(url, at)
    open.push({ generation, at })
    this.byUrl.set(url, open)
    if (++this.sinceSweep >= SWEEP_EVERY) this.sweep(at)
  }

  /**
   * The generation to blame for a rejection of `url`: the oldest open signing of it, which is
   * consumed; undefined when none is open (the caller blames the credentials it holds now).
   */
  rejected(url: string): number | undefined {
    const open = this.open(url, this.now())
    if (open.length === 0) return undefined
    let oldest = 0
    for (let i = 1; i < open.length; i++) if (open[i].generation < open[oldest].generation) oldest = i
    const [blamed] = open.splice(oldest, 1)
    if (open.length === 0) this.byUrl.delete(url)
    return blamed.generation
  }

  /** `url`'s signings younger than settleMs, oldest first (the settled ones are dropped). */
  private open(url: string, at: number): Signing[] {
    const open = this.byUrl.get(url) ?? []
    let settled = 0
    while (settled < open.length && at - open[settled].at >= this.settleMs) settled++
    open.splice(0, settled)
    if (open.length === 0) this.byUrl.delete(url)
    return open
  }

  private sweep(at: number): void {
    this.sinceSweep = 0
    for (const url of [...this.byUrl.keys()]) this.open(url, at)
  }
}
