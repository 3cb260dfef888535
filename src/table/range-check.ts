/**
 * Checks of ranged GET answers, so a misbehaving server or a file rewritten during a run is
 * caught in the fetch layer instead of being decoded as data:
 * - a 206 whose Content-Range names other bytes than were asked for (wrong bytes: not retried),
 * - a 206 whose body is shorter or longer than its Content-Range (truncated: retried),
 * - a file whose ETag, Last-Modified or total size differs from the first ranged answer the same
 *   reader saw for the URL, or from the log's size (changed file: not retried). Delta data files
 *   are immutable by name, so any change means the bytes are no longer the ones the log describes.
 * Headers a cross-origin server does not expose (Access-Control-Expose-Headers) are not checked.
 */
import { TableError } from './types.ts'

/** What identifies one version of a file: its validators and total size in bytes. */
export interface FileValidator {
  etag?: string
  lastModified?: string
  size?: number
}

/**
 * Error raised when a server answer cannot be right whatever we do (wrong bytes, changed file);
 * `send` gives up at once instead of retrying it.
 */
export class FatalResponseError extends TableError {}

/** Error raised for an answer that was cut short; asking again may help. */
export class TruncatedResponseError extends TableError {}

/** Requested byte range of a `Range: bytes=…` header: [start, end] inclusive (end or start may be open). */
export function requestedRange(header: string | null): { start?: number; end?: number } | undefined {
  const m = header ? /^\s*bytes=(\d*)-(\d*)\s*$/.exec(header) : null
  if (!m || (m[1] === '' && m[2] === '')) return undefined
  return { start: m[1] === '' ? undefined : Number(m[1]), end: m[2] === '' ? undefined : Number(m[2]) }
}

/** Parsed `Content-Range: bytes s-e/total` (total may be '*'). */
export function contentRange(header: string | null): { start: number; end: number; total?: number } | undefined {
  const m = header ? /^\s*bytes\s+(\d+)-(\d+)\/(\d+|\*)\s*$/.exec(header) : null
  if (!m) return undefined
  return { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? undefined : Number(m[3]) }
}

/**
 * Validates the answer to a GET of `url` that asked for `rangeHeader`; throws FatalResponseError
 * or TruncatedResponseError naming the URL and the fault. `bodyBytes` is the body actually read.
 */
export function checkRangedAnswer(
  url: string,
  rangeHeader: string,
  res: Response,
  bodyBytes: number,
  memory: FileMemory,
): void {
  const asked = requestedRange(rangeHeader)
  if (!asked) return
  const got = res.status === 206 ? contentRange(res.headers.get('Content-Range')) : undefined
  if (res.status === 206 && got) checkSpan(url, rangeHeader, asked, got, bodyBytes)
  const size = got?.total ?? (res.status === 200 ? bodyBytes : undefined)
  memory.check(url, {
    etag: res.headers.get('ETag') ?? undefined,
    lastModified: res.headers.get('Last-Modified') ?? undefined,
    size,
  })
}

function checkSpan(
  url: string,
  rangeHeader: string,
  asked: { start?: number; end?: number },
  got: { start: number; end: number; total?: number },
  bodyBytes: number,
): void {
  const [start, end] = expectedSpan(asked, got)
  // Fewer bytes from the right start: a short answer (retried), unlike bytes from elsewhere.
  if (got.start === start && got.end < end) {
    throw new TruncatedResponseError(
      `GET ${url}: truncated answer: asked for ${rangeHeader}, the server answered bytes ${got.start}-${got.end}`,
      'http',
      url,
    )
  }
  if (got.start !== start || got.end !== end) {
    throw new FatalResponseError(
      `GET ${url}: wrong bytes: asked for ${rangeHeader}, the server answered bytes ${got.start}-${got.end}`,
      'bad-response',
      url,
    )
  }
  const length = got.end - got.start + 1
  if (bodyBytes !== length) {
    throw new TruncatedResponseError(
      `GET ${url}: truncated body: ${bodyBytes} of ${length} bytes for Content-Range ${got.start}-${got.end}`,
      'http',
      url,
    )
  }
}

/**
 * The span the server should have answered, resolved as RFC 9110 says: an end past EOF is
 * clamped, a suffix range counts from the end. Unknown total: what the server said is taken.
 */
function expectedSpan(
  asked: { start?: number; end?: number },
  got: { start: number; end: number; total?: number },
): [number, number] {
  const last = got.total === undefined ? got.end : got.total - 1
  if (asked.start === undefined)
    return got.total === undefined ? [got.start, got.end] : [Math.max(0, got.total - asked.end!), last]
  return [asked.start, Math.min(asked.end ?? last, last)]
}

/**
 * What one reader has seen of its files: the first validator per URL, against which every later
 * ranged answer is checked. One per open file or per loader worker (not per realm: a later run
 * may legitimately read a URL that was rewritten between runs, and tests reuse URLs).
 */
export class FileMemory {
  private readonly seen = new Map<string, FileValidator>()

  /** Compares with the first validator seen for `url` (throws FatalResponseError 'changed-file'); learns what is new. */
  check(url: string, now: FileValidator): void {
    const first = this.seen.get(url)
    if (!first) {
      this.seen.set(url, { ...now })
      return
    }
    for (const what of ['etag', 'size', 'lastModified'] as const) {
      if (first[what] !== undefined && now[what] !== undefined && first[what] !== now[what]) {
        throw new FatalResponseError(
          `GET ${url}: file changed while reading (${label(what)} was ${first[what]}, now ${now[what]}); ` +
            "the snapshot's data files must not be rewritten in place",
          'changed-file',
          url,
        )
      }
    }
    // A first record may lack what a later answer has (the log gives only the size): learn it.
    first.etag ??= now.etag
    first.lastModified ??= now.lastModified
    first.size ??= now.size
  }

  /**
   * Records what a file is known to be (the log's size, the validator the planner saw in another
   * realm), so the first answer here is checked against it too.
   */
  expect(url: string, expected: FileValidator): void {
    this.check(url, expected)
  }

  /** The validator known for `url`, if any (a copy). */
  known(url: string): FileValidator | undefined {
    const v = this.seen.get(url)
    return v && { ...v }
  }
}

function label(what: keyof FileValidator): string {
  return what === 'etag' ? 'ETag' : what === 'size' ? 'size' : 'Last-Modified'
}
