/**
 * The flags that say which rows a command trains on, shared by `train` and `sweep`: the table,
 * its version, label, features, row filter and the validation rows.
 */
import { UsageError } from './args.ts'

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
    help: "only read the table's files from its own origin and these (repeat or comma-separate, e.g. https://bucket.example.com); default: any http(s) origin",
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
    help: 'hold out this share of rows, by a seeded hash of (seed, file, row)',
  },
  ...TOKEN_FLAG,
  ...ALLOW_ORIGIN_FLAG,
} as const
