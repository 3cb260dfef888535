/**
 * Where a CLI command writes: stdout lines, stderr lines, and table data. Injectable so tests
 * capture output. Every message passes `safeIo` (main.ts wraps the io once), so no command can
 * print a signed URL's signature or a table's terminal escape sequence by forgetting a call.
 */
import { redactUrls } from '../util/redact.ts'

/** Where a CLI command writes. */
export interface CliIo {
  /** One line (or block) to stdout: a message, a table, or a `--json` summary. */
  out(line: string): void
  /** One line (or block) to stderr: progress and errors. */
  err(line: string): void
  /**
   * Table data to stdout, exactly as given (scan's CSV and JSONL rows, `ids` lines); default
   * `out`. Kept apart from `out` because messages are rewritten for the terminal and data must not be.
   */
  data?(text: string): void
  /**
   * The one updating progress line (stderr on a terminal), replaced by each call and cleared by
   * `undefined`; absent where stderr is not a terminal, so piped output stays plain lines
   * (progress.ts decides what to print either way).
   */
  status?(line: string | undefined): void
}

/** The stderr the default io writes to: a stream, and whether it is an interactive terminal. */
export interface ErrStream {
  write(text: string): unknown
  isTTY?: boolean
  columns?: number
}

/** The process's stdout/stderr; a progress line on stderr where it is a terminal (`TERM` not `dumb`). */
export function defaultIo(stderr: ErrStream = process.stderr, env: NodeJS.ProcessEnv = process.env): CliIo {
  const io: CliIo = {
    out: line => {
      process.stdout.write(line + '\n')
    },
    err: line => {
      stderr.write(line + '\n')
    },
  }
  if (!stderr.isTTY || env.TERM === 'dumb') return io
  return { ...io, ...statusLine(stderr) }
}

/** Erase the terminal's current line and return to its start (ANSI EL 2 after CR). */
const CLEAR_LINE = '\r\u001b[2K'

/**
 * `err` and `status` over one terminal stream: the status line is redrawn in place, cut to the
 * terminal's width (a wrapped line could not be erased), and a message printed while it shows
 * goes above it.
 */
export function statusLine(stderr: ErrStream): Required<Pick<CliIo, 'err' | 'status'>> {
  let shown: string | undefined
  const toWidth = (line: string) => {
    // A pseudo-terminal without a size reports 0 columns.
    const width = Math.max(20, (stderr.columns || 80) - 1)
    return line.length > width ? `${line.slice(0, width - 1)}…` : line
  }
  return {
    err: line => {
      stderr.write(shown === undefined ? `${line}\n` : `${CLEAR_LINE}${line}\n${shown}`)
    },
    status: line => {
      shown = line === undefined ? undefined : toWidth(line)
      stderr.write(`${CLEAR_LINE}${shown ?? ''}`)
    },
  }
}

/**
 * `io` with every message made safe to print: secrets redacted (util/redact.ts), then control
 * characters escaped (escapeControls). `data` passes through untouched.
 */
export function safeIo(io: CliIo): CliIo {
  return {
    out: line => io.out(printable(line)),
    err: line => io.err(printable(line)),
    data: text => writeData(io, text),
    ...(io.status ? { status: line => io.status?.(line === undefined ? undefined : printable(line)) } : {}),
  }
}

/** Writes table data through `io.data`, or `io.out` where the io has no data channel. */
export function writeData(io: CliIo, text: string): void {
  if (io.data) io.data(text)
  else io.out(text)
}

/** A message as the terminal should see it: no secrets, no control characters but \n and \t. */
export function printable(text: string): string {
  return escapeControls(redactUrls(text))
}

/** C0 controls except \n and \t, DEL, and C1 (U+009B is a one-character CSI on some terminals). */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g

/**
 * `text` with each control character written as `\u001b` and the like, so a column name, file
 * name or commit line from a table cannot move the cursor, retitle the window or hide output.
 * On JSON text the result is the same JSON: raw control characters can only stand inside its
 * strings (JSON.stringify escapes C0 but writes DEL and C1 raw), where `\u00XX` means the same.
 */
export function escapeControls(text: string): string {
  return text.replace(CONTROL, c => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
}

/** Prints an error as one clear line: `snaptrain: <message>` (the message names file/URL/flag). */
export function reportError(io: CliIo, e: unknown): void {
  const msg = e instanceof Error ? e.message : String(e)
  io.err(`snaptrain: ${msg}`)
  if (process.env.SNAPTRAIN_DEBUG && e instanceof Error && e.stack) io.err(e.stack)
}
