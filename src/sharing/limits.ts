/**
 * Bounds on one answer of a sharing server, all its pages together, so a server that pages
 * forever (a repeated `nextPageToken`), repeats files or sends without end is refused instead of
 * being followed for minutes into gigabytes. One page's body is already bounded by the reader's
 * log-file cap (table/http.ts); these bound the sum.
 */
import { envPositiveInt } from '../table/http.ts'
import { TableError, type ShareAnswerLimits } from '../table/types.ts'
import { quotedName } from './names.ts'

/**
 * Defaults that fit a table of a million files: servers page at 1 000 files or more (the reference
 * server's default), a file line with its statistics and pre-signed URL is 1–2 KiB.
 */
const DEFAULT_SHARE_LIMITS: Required<ShareAnswerLimits> = {
  pages: 100_000,
  files: 2_000_000,
  bytes: 4 * 2 ** 30,
}

const ENV: Record<keyof ShareAnswerLimits, string> = {
  pages: 'SNAPTRAIN_SHARE_MAX_PAGES',
  files: 'SNAPTRAIN_SHARE_MAX_FILES',
  bytes: 'SNAPTRAIN_SHARE_MAX_BYTES',
}

/** Each bound from `given`, else its environment variable (Node), else its default. */
export function shareLimits(given: ShareAnswerLimits = {}): Required<ShareAnswerLimits> {
  const pick = (key: keyof ShareAnswerLimits): number => {
    const value = given[key] ?? envPositiveInt(ENV[key])
    return value !== undefined && Number.isSafeInteger(value) && value > 0 ? value : DEFAULT_SHARE_LIMITS[key]
  }
  return { pages: pick('pages'), files: pick('files'), bytes: pick('bytes') }
}

/**
 * Follows one paged answer: counts pages, items and bytes against the bounds, and refuses a page
 * token or an item the answer already gave. Errors name `what` (the table or list), the page and
 * the bound with its setting; they never quote a page token.
 */
export class Pager {
  private page = 0
  private bytes = 0
  private readonly tokens = new Map<string, number>()
  private readonly items = new Map<string, number>()

  constructor(
    private readonly what: string,
    private readonly url: string,
    private readonly limits: Required<ShareAnswerLimits>,
    /** What the items are (`files`, `shares`…) and what keys them (`file id`, `share name`…), in errors. */
    private readonly itemKind: { plural: string; key: string },
  ) {}

  /** Before each request: refuses a page past the page bound. */
  next(): void {
    if (++this.page > this.limits.pages) {
      throw this.bound(`did not end within ${this.limits.pages} pages`, 'pages', 'SNAPTRAIN_SHARE_MAX_PAGES')
    }
  }

  /** The page's body as text, its bytes counted against the byte bound. */
  async read(res: Response): Promise<string> {
    const body = new Uint8Array(await res.arrayBuffer())
    this.bytes += body.byteLength
    if (this.bytes > this.limits.bytes) {
      throw this.bound(
        `is longer than ${this.limits.bytes} bytes by page ${this.page}`,
        'bytes',
        'SNAPTRAIN_SHARE_MAX_BYTES',
      )
    }
    return new TextDecoder().decode(body)
  }

  /** The page's items by key: refuses one seen before (on this page or an earlier one) and too many. */
  take(keys: string[]): void {
    for (const key of keys) {
      const first = this.items.get(key)
      if (first !== undefined) {
        throw new TableError(
          `${this.what}: page ${this.page} of the answer lists ${this.itemKind.key} '${quotedName(key)}' again ` +
            `(first on page ${first}); a server that repeats items is refused, not read`,
          'sharing',
          this.url,
        )
      }
      this.items.set(key, this.page)
    }
    if (this.items.size > this.limits.files) {
      throw this.bound(
        `lists more than ${this.limits.files} ${this.itemKind.plural}`,
        'files',
        'SNAPTRAIN_SHARE_MAX_FILES',
      )
    }
  }

  /** The next page token; refuses one an earlier page gave (the server would answer that page again, forever). */
  token(token: string): void {
    const first = this.tokens.get(token)
    if (first !== undefined) {
      throw new TableError(
        `${this.what}: page ${this.page} of the answer repeats the nextPageToken of page ${first}; ` +
          'a server that pages in a circle is refused',
        'sharing',
        this.url,
      )
    }
    this.tokens.set(token, this.page)
  }

  private bound(what: string, key: keyof ShareAnswerLimits, env: string) {
    return new TableError(
      `${this.what}: the server's answer ${what} (the bound shareLimits.${key} / ${env}); nothing of it was read`,
      'sharing',
      this.url,
    )
  }
}
