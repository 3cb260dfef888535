/**
 * The spreadsheet formula-injection guard for CSV cells (OWASP "CSV injection"): a text cell that
 * starts with `=`, `+`, `-`, `@`, a tab or a carriage return is run as a formula by Excel, Sheets
 * and LibreOffice when the file is opened, so a table's strings could make a user's spreadsheet
 * fetch URLs or run commands. The guard writes such a cell with a leading `'`, which spreadsheets
 * show as text. It changes the data, so it is an option (`--csv-formula-guard`), off by default.
 */

/** Options of the CSV writers that write a table's strings. */
export interface CsvOptions {
  /** Prefix text cells that a spreadsheet would run as a formula with `'` (guardFormula). */
  formulaGuard?: boolean
}

const TRIGGER = /^[=+\-@\t\r]/
/** A plain decimal number (`-1.5`, `+3`, `-2e-7`): a spreadsheet reads it as a number, never a formula. */
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

/** `text` with a leading `'` when a spreadsheet would take it for a formula; numbers are kept as they are. */
export function guardFormula(text: string): string {
  return TRIGGER.test(text) && !NUMBER.test(text) ? `'${text}` : text
}
