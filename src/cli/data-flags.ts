/**
 * The flags that say which rows a command trains on, shared by `train` and `sweep`: the table,
 * its version, label, features, row filter and the validation rows.
 */

/** `--token`: a bearer token for the table's origin (train, predict, sweep; scan has its own). */
export const TOKEN_FLAG = {
  token: { type: 'string', placeholder: 'T', help: 'bearer token sent (Authorization header) to the table\'s origin only, never written out (prefer $SNAPTRAIN_TOKEN: argv is visible to other users)' },
} as const

/**
 * The request headers for `--token`, else `SNAPTRAIN_TOKEN`: `Authorization: Bearer T`, or
 * undefined when neither is set. The reader sends them to the table's origin only (table/http.ts).
 */
export function tokenHeaders(flags: { token?: string }, env = process.env): Record<string, string> | undefined {
  const token = flags.token ?? (env.SNAPTRAIN_TOKEN || undefined)
  return token ? { Authorization: `Bearer ${token}` } : undefined
}

/** Table, version, label, features, filter and validation flags (CommandSpec flag entries). */
export const DATA_FLAGS = {
  table: { type: 'string', required: true, placeholder: 'dir|url', help: 'training table: a local folder (served on 127.0.0.1) or an http(s) URL' },
  version: { type: 'int', min: 0, placeholder: 'N', help: 'table version (default: latest)' },
  label: { type: 'string', required: true, placeholder: 'COL', help: 'label column (0/1 for binary:logistic)' },
  features: { type: 'list', placeholder: 'a,b', help: 'feature columns (default: every numeric, boolean and string column except the label)' },
  filter: { type: 'string', placeholder: 'EXPR', help: 'row filter, e.g. "age >= 30 AND job != \'student\'"' },
  'valid-table': { type: 'string', placeholder: 'dir|url', help: 'validation table (same columns; the filter applies to it too)' },
  'valid-version': { type: 'int', min: 0, placeholder: 'N', help: 'validation table version (default: latest)' },
  'valid-fraction': { type: 'number', placeholder: 'f', help: 'hold out this share of rows, by a seeded hash of (seed, file, row)' },
  ...TOKEN_FLAG,
} as const
