/**
 * `snaptrain serve --table DIR [--port P] [--host H]`: the built app on a local table, for a
 * person at a browser. The page server (page-server.ts) serves the app and DIR on one origin
 * under /tables/, where the app's table discovery already looks: a Delta table folder appears
 * as /tables/<its name>/, a folder of tables (like public/tables) as the tables in it. Prints the
 * URL and runs until SIGINT or SIGTERM; loopback unless --host names another interface.
 */
import { existsSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { parseCommand } from './args.ts'
import type { CommandSpec, FlagSpec } from './args.ts'
import type { CliIo } from './io.ts'
import { requireFolder } from './table-url.ts'
import { startPageServer, type PageServer } from '../serve/page-server.ts'
import type { ListedFolder } from '../serve/vite-tables-plugin.ts'

const SPEC = {
  name: 'serve',
  summary: 'Serve the app with a local table (or a folder of tables) in its table list, until Ctrl-C.',
  flags: {
    table: {
      type: 'string',
      required: true,
      placeholder: 'dir',
      help: 'a Delta table folder (listed under its name), or a folder of table folders',
    },
    port: { type: 'int', min: 0, default: 0, placeholder: 'P', help: 'TCP port (0: a free one)' },
    host: {
      type: 'string',
      default: '127.0.0.1',
      placeholder: 'H',
      help: 'interface to bind (loopback unless given; its name is answered too, with the port; more names with SNAPTRAIN_ALLOWED_HOSTS)',
    },
  },
  notes: `examples:
  snaptrain data --out tables && snaptrain serve --table tables
  snaptrain serve --table ~/delta/clicks --port 8080`,
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/**
 * Where `dir` appears in the page's listing: a Delta table (it has _delta_log/) under its own
 * name, any other folder as a folder of tables. Throws TableArgError naming `--table`.
 */
export async function tableFolders(dir: string): Promise<ListedFolder[]> {
  await requireFolder(dir)
  if (existsSync(join(dir, '_delta_log'))) return [{ key: `tables/${basename(dir)}/`, dir }]
  return [{ key: 'tables/', dir }]
}

/** Starts the page server for `snaptrain serve`'s flags (`table` relative to `cwd`). */
export async function serveTable(
  flags: { table: string; port?: number; host?: string },
  cwd = process.cwd(),
): Promise<PageServer> {
  const tables = await tableFolders(resolve(cwd, flags.table))
  return startPageServer({ tables, port: flags.port, host: flags.host })
}

/** Runs `snaptrain serve`; resolves (0) once a signal has closed the server. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const f = parsed.values
  const server = await serveTable(f)
  io.out(`snaptrain serve: ${server.url} (tables from ${resolve(f.table)}; Ctrl-C stops)`)
  const signal = await new Promise<NodeJS.Signals>(done => {
    const stop = (s: NodeJS.Signals) => {
      process.off('SIGINT', stop)
      process.off('SIGTERM', stop)
      done(s)
    }
    process.on('SIGINT', stop)
    process.on('SIGTERM', stop)
  })
  io.err(`snaptrain serve: ${signal}, stopping`)
  await server.close()
  return 0
}
