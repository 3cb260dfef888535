/**
 * The one CSV writer of every file and stream the project writes (scan --format csv, the loader
 * bench's export, trials.csv from the CLI and the page, metrics.csv, preds.csv). Dialect: RFC 4180
 * quoting — a field holding a comma, quote, CR or LF is quoted, quotes doubled; a missing value
 * (null, undefined) is an empty field and the empty string is `""`, so the two stay
 * distinguishable (as PostgreSQL's CSV does); nested values are their JSON text. The line end is
 * the writer's choice (`csvText`): LF for streams and files read back by line, CRLF for files
 * meant for spreadsheets.
 *
 * The spreadsheet formula-injection guard (OWASP "CSV injection"): a text cell that starts with
 * `=`, `+`, `-`, `@`, a tab or a carriage return is run as a formula by Excel, Sheets and
 * LibreOffice when the file is opened, so a table's strings could make a user's spreadsheet fetch
 * URLs or run commands. The guard writes such a cell with a leading `'`, which spreadsheets show
 * as text. It changes the data, so it is an option (`--csv-formula-guard`), off by default.
 */

/** Options of the CSV writers that write a table's strings. */
export interface CsvOptions {
  /** Prefix text cells that a spreadsheet would run as a formula with `'` (guardFormula). */
  formulaGuard?: boolean
}

/** A line terminator: LF, or CRLF (RFC 4180's). */
export type CsvEol = '\n' | '\r\n'

/** No options: the default of every CSV writer (one object, not one per field). */
const NO_OPTIONS: CsvOptions = {}

const TRIGGER = /^[=+\-@\t\r]/
/** A plain decimal number (`-1.5`, `+3`, `-2e-7`): a spreadsheet reads it as a number, never a formula. */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/
const SPECIAL = /[",\r\n]/

/** `text` with a leading `'` when a spreadsheet would take it for a formula; numbers are kept as they are. */
export function guardFormula(text: string): string {
  return TRIGGER.test(text) && !NUMBER.test(text) ? `'${text}` : text
}

/**
 * One CSV field of a plain value: null/undefined → empty; strings as they are (guarded with
 * `formulaGuard`); numbers and booleans as JS prints them; objects and arrays as JSON text.
 * Values that need converting first (int64, timestamps, binary) are converted by the caller.
 */
export function csvField(v: unknown, opts: CsvOptions = NO_OPTIONS): string {
  if (v === null || v === undefined) return ''
  const raw = typeof v === 'object' ? JSON.stringify(v) : String(v)
  const text = opts.formulaGuard && typeof v === 'string' ? guardFormula(raw) : raw
  return text === '' || SPECIAL.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/** One CSV record (no line terminator) of `values` in order. */
export function csvRecord(values: readonly unknown[], opts: CsvOptions = NO_OPTIONS): string {
  let line = ''
  for (let i = 0; i < values.length; i++) line += (i ? ',' : '') + csvField(values[i], opts)
  return line
}

/** A whole CSV text: one record per entry of `records`, each ended by `eol` (LF unless given). */
export function csvText(
  records: readonly (readonly unknown[])[],
  opts: CsvOptions & { eol?: CsvEol } = NO_OPTIONS,
): string {
  const eol = opts.eol ?? '\n'
  let text = ''
  for (const r of records) text += csvRecord(r, opts) + eol
  return text
}
