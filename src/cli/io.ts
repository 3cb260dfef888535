/** Where a CLI command writes: stdout lines, stderr lines. Injectable so tests capture output. */
export interface CliIo {
  /** One line (or block) to stdout. */
  out(line: string): void
  /** One line (or block) to stderr: progress and errors. */
  err(line: string): void
}

/** The process's stdout/stderr. */
export function defaultIo(): CliIo {
  return {
    out: line => { process.stdout.write(line + '\n') },
    err: line => { process.stderr.write(line + '\n') },
  }
}

/** Prints an error as one clear line: `snaptrain: <message>` (the message names file/URL/flag). */
export function reportError(io: CliIo, e: unknown): void {
  const msg = e instanceof Error ? e.message : String(e)
  io.err(`snaptrain: ${msg}`)
  if (process.env.SNAPTRAIN_DEBUG && e instanceof Error && e.stack) io.err(e.stack)
}
