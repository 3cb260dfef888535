/**
 * The Parquet layer's one error: a file whose bytes cannot be right ('corrupt-file': a declared
 * size over its bound, a page past its chunk) or a range that came back short after retries
 * ('http'). It names the file (and the column where there is one). table/ and data/ hand it on as
 * a TableError with the same code and message (table/rows.ts asTableError); the layer itself
 * knows no table.
 */

/** Kinds of Parquet-layer failure (the TableError codes of the same name). */
export type ParquetErrorCode = 'corrupt-file' | 'http'

export class ParquetError extends Error {
  constructor(
    message: string,
    readonly code: ParquetErrorCode,
    readonly url?: string,
  ) {
    super(message)
    this.name = 'ParquetError'
  }
}
