/**
 * The flags that say which rows a command trains on, shared by `train` and `sweep`: the table,
 * its version, label, features, row filter and the validation rows.
 */

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
} as const
