/**
 * The flags that say which rows a command trains on, shared by `train` and `sweep`: the table,
 * its version, label, features, row filter and the validation rows.
 */
import { UsageError } from './args.ts'
import { DEFAULT_VALID_FRACTION } from '../eval/validation.ts'
import { configureUnitCache, DEFAULT_UNIT_CACHE, type UnitCacheSettings } from '../data/unit-cache.ts'

/** `--token`: a bearer token for the table's origin (train, predict, sweep; scan has its own). */
export const TOKEN_FLAG = {
  token: {
    type: 'string',
    placeholder: 'T',
    help: "bearer token sent (Authorization header) to the table's origin only, never written out (prefer $SNAPTRAIN_TOKEN: argv is visible to other users)",
  },
} as const

/**
 * The request headers for `--token`, else `SNAPTRAIN_TOKEN`: `Authorization: Bearer T`, or
 * undefined when neither is set. The reader sends them to the table's origin only (table/http.ts).
 */
export function tokenHeaders(flags: { token?: string }, env = process.env): Record<string, string> | undefined {
  const token = flags.token ?? (env.SNAPTRAIN_TOKEN || undefined)
  return token ? { Authorization: `Bearer ${token}` } : undefined
}

/** `--allow-origin`: other origins a table's files may come from (scan, train, predict, sweep). */
export const ALLOW_ORIGIN_FLAG = {
  'allow-origin': {
    type: 'list',
    placeholder: 'ORIGIN',
    help: "only send requests to the table's own origin and these: data files, a share's pre-signed URLs, redirects (repeat or comma-separate, e.g. https://bucket.example.com); default: any http(s) origin",
  },
} as const

/**
 * `--allow-origin` as origins (`https://host[:port]`), or undefined when not given (any origin).
 * Throws UsageError for anything that is not a bare http(s) origin.
 */
export function allowOrigins(flags: { 'allow-origin'?: string[] }): string[] | undefined {
  const given = flags['allow-origin'] ?? []
  if (given.length === 0) return undefined
  return given.map(text => {
    let u: URL | undefined
    try {
      u = new URL(text)
    } catch {
      u = undefined
    }
    const bare =
      u && /^https?:$/.test(u.protocol) && !u.username && !u.password && u.pathname === '/' && !u.search && !u.hash
    if (!u || !bare) {
      throw new UsageError(
        `--allow-origin: expected an http(s) origin such as https://bucket.example.com, got '${text}'`,
      )
    }
    return u.origin
  })
}

/** `--allow-insecure-http`: credentials may cross plain http:// to a host that is not loopback (scan, train, predict, sweep, shares). */
export const INSECURE_HTTP_FLAG = {
  'allow-insecure-http': {
    type: 'boolean',
    help: 'send tokens, signatures and pre-signed URLs over plain http:// to hosts that are not loopback (refused by default; for a network you trust)',
  },
} as const

/** HttpOptions of `--allow-insecure-http`: `{ allowInsecureHttp: true }` when given, else none. */
export function insecureHttp(flags: { 'allow-insecure-http'?: boolean }): { allowInsecureHttp?: true } {
  return flags['allow-insecure-http'] ? { allowInsecureHttp: true } : {}
}

/**
 * The HTTP options `--allow-origin` and `--allow-insecure-http` set, for a governed table's own
 * requests (a catalog, a share's API) and its local proxies (governed.ts).
 */
export function networkOptions(flags: { 'allow-origin'?: string[]; 'allow-insecure-http'?: boolean }): {
  allowOrigins?: string[]
  allowInsecureHttp?: true
} {
  const origins = allowOrigins(flags)
  return { ...(origins ? { allowOrigins: origins } : {}), ...insecureHttp(flags) }
}

/** Table, version, label, features, filter and validation flags (CommandSpec flag entries). */
export const DATA_FLAGS = {
  table: {
    type: 'string',
    required: true,
    placeholder: 'dir|url',
    help: 'training table: a local folder (served on 127.0.0.1) or an http(s) URL',
  },
  version: { type: 'int', min: 0, placeholder: 'N', help: 'table version (default: latest)' },
  label: { type: 'string', required: true, placeholder: 'COL', help: 'label column (0/1 for binary:logistic)' },
  features: {
    type: 'list',
    placeholder: 'a,b',
    help: 'feature columns (default: every numeric, boolean and string column except the label)',
  },
  filter: { type: 'string', placeholder: 'EXPR', help: 'row filter, e.g. "age >= 30 AND job != \'student\'"' },
  'valid-table': {
    type: 'string',
    placeholder: 'dir|url',
    help: 'validation table (same columns; the filter applies to it too)',
  },
  'valid-version': { type: 'int', min: 0, placeholder: 'N', help: 'validation table version (default: latest)' },
  'valid-fraction': {
    type: 'number',
    placeholder: 'f',
    help: `hold out this share of rows, by a seeded hash of each row's values in the split-key columns (default ${DEFAULT_VALID_FRACTION} unless --valid-table; train: 0 for no validation rows)`,
  },
  'split-key': {
    type: 'list',
    placeholder: 'a,b',
    help: 'columns whose values identify a row for --valid-fraction (default: the label and the features)',
  },
  ...TOKEN_FLAG,
  ...ALLOW_ORIGIN_FLAG,
  ...INSECURE_HTTP_FLAG,
} as const

/** The validation rows a command uses: the fraction it passes on (undefined: none or a table) and the line that says so. */
export interface ValidationChoice {
  validFraction?: number
  /** "validation: 20 % of rows by row key (default; --valid-fraction 0 for none)", for stderr. */
  line: string
}

/**
 * What the validation flags ask for: --valid-table, else --valid-fraction (0: none, where `none`
 * is allowed: `train`), else DEFAULT_VALID_FRACTION — the page's default too — said as such.
 * Throws naming the flag when --valid-fraction is out of range.
 */
export function validationChoice(
  f: { 'valid-table'?: string; 'valid-fraction'?: number; 'split-key'?: string[] },
  none: boolean,
): ValidationChoice {
  const fr = f['valid-fraction']
  if (f['valid-table'] && fr !== undefined) throw new UsageError('--valid-table and --valid-fraction: give at most one')
  const key = f['split-key']?.length ? `the row key ${f['split-key'].join(',')}` : 'row key'
  if (f['valid-table']) return { line: `validation: the rows of ${f['valid-table']} (--valid-table)` }
  if (fr === undefined)
    return {
      validFraction: DEFAULT_VALID_FRACTION,
      line: `validation: ${percent(DEFAULT_VALID_FRACTION)} of rows by ${key} (default${none ? '; --valid-fraction 0 for none' : ''})`,
    }
  if (none && fr === 0) return { line: 'validation: none (--valid-fraction 0): no validation metrics' }
  if (!(fr > 0 && fr < 1))
    throw new UsageError(`--valid-fraction: must be in ${none ? '[0, 1) (0: none)' : '(0, 1)'}, got ${fr}`)
  return { validFraction: fr, line: `validation: ${percent(fr)} of rows by ${key} (--valid-fraction ${fr})` }
}

/** 0.2 → "20 %". */
function percent(f: number): string {
  return `${Number((f * 100).toPrecision(6))} %`
}

/**
 * `--no-cache` and `--cache-mb`: the epoch cache of decoded units (src/data/unit-cache.ts) for the
 * commands whose page reads the table through loaders (train, sweep, predict).
 */
export const CACHE_FLAGS = {
  'no-cache': {
    type: 'boolean',
    help: 'read the table for every epoch: the loaders neither read nor fill the epoch cache of decoded units (by default epochs after the first, and later reads of the same table version, come from it)',
  },
  'cache-mb': {
    type: 'number',
    min: 0,
    placeholder: 'MiB',
    help: `memory budget of the epoch cache in MiB (default ${DEFAULT_UNIT_CACHE.memoryBytes / 2 ** 20}); least recently used units beyond it are read again`,
  },
} as const

/**
 * The cache settings of `--no-cache` and `--cache-mb`, every field given (the defaults where a flag
 * is absent), so a run in a process or page that ran another keeps none of its settings. Throws
 * UsageError naming the flag.
 */
export function cacheSettings(f: { 'no-cache'?: boolean; 'cache-mb'?: number }): Partial<UnitCacheSettings> {
  const mb = f['cache-mb']
  if (f['no-cache'] && mb !== undefined) throw new UsageError('--cache-mb: has no effect with --no-cache (give one)')
  const memoryBytes = mb === undefined ? DEFAULT_UNIT_CACHE.memoryBytes : Math.round(mb * 2 ** 20)
  if (!Number.isSafeInteger(memoryBytes))
    throw new UsageError(`--cache-mb: expected a number of MiB below ${Number.MAX_SAFE_INTEGER / 2 ** 20}, got ${mb}`)
  return { enabled: !f['no-cache'], memoryBytes }
}

/**
 * Applies `--no-cache` / `--cache-mb` to this process's cache (the Node reads before the page: the
 * precheck's label column); the page gets the same settings before its run (page-run.ts
 * configurePageCache). Throws UsageError naming the flag.
 */
export function applyCacheFlags(f: { 'no-cache'?: boolean; 'cache-mb'?: number }): Partial<UnitCacheSettings> {
  const settings = cacheSettings(f)
  try {
    configureUnitCache(settings)
  } catch (e) {
    throw new UsageError(`--cache-mb: ${(e as Error).message}`)
  }
  return settings
}
