/**
 * `snaptrain shares --profile F [--json]`: what a Delta Sharing profile can read — every share,
 * its schemas and their tables (all pages of each list), one `share.schema.table` per line, or one
 * JSON object. The token goes to the profile's endpoint only and is never printed.
 *
 * Names are the server's text: a line shows each with its control characters escaped (a newline in
 * a share name would otherwise print as a table line of its own), and a share or schema whose name
 * cannot be sent as a path segment (`..`, a control character) is not asked for its contents but
 * named on stderr, and the command fails after printing the rest.
 */
import { parseCommand } from './args.ts'
import type { CommandSpec, FlagSpec } from './args.ts'
import type { CliIo } from './io.ts'
import { readProfileFile } from './profile-file.ts'
import { INSECURE_HTTP_FLAG, insecureHttp } from './data-flags.ts'
import { TableArgError } from '../sources/index.ts'
import { escapeName, pathSegment, SharingClient } from '../sharing/index.ts'
import { mapLimit } from '../util/map-limit.ts'

const SPEC = {
  name: 'shares',
  summary: 'List the shares, schemas and tables a Delta Sharing profile can read.',
  flags: {
    profile: {
      type: 'string',
      required: true,
      placeholder: 'profile.share',
      help: 'Delta Sharing profile file (version 1 or 2)',
    },
    json: {
      type: 'boolean',
      help: 'print one JSON object {endpoint, shares: [{name, schemas: [{name, tables: […]}]}]',
    },
    'timeout-ms': { type: 'int', min: 1, placeholder: 'ms', help: 'per-request HTTP timeout (default 10000)' },
    ...INSECURE_HTTP_FLAG,
  },
  notes: `Each table prints as <share>.<schema>.<table>; address it as --table <profile>#<share>.<schema>.<table>
in scan, train, predict and sweep.

examples:
  snaptrain shares --profile ~/open-datasets.share
  snaptrain scan --table ~/open-datasets.share#delta_sharing.default.owid-covid-data --limit 5`,
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/** Runs `snaptrain shares`. */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const flags = parsed.values
  try {
    const access = await readProfileFile(flags.profile, '--profile')
    const http = { ...(flags['timeout-ms'] ? { timeoutMs: flags['timeout-ms'] } : {}), ...insecureHttp(flags) }
    const client = new SharingClient(access.profile, access.source, http)
    const refused: string[] = []
    /** False (and a note) for a name the server listed that no request may carry. */
    const usable = (name: string, what: string): boolean => {
      try {
        pathSegment(name, what)
        return true
      } catch (e) {
        refused.push((e as Error).message)
        return false
      }
    }
    const shares = (await client.listShares()).filter(share => usable(share.name, 'share'))
    const tree = await mapLimit(shares, 4, async share => {
      const schemas = (await client.listSchemas(share.name)).filter(schema => usable(schema.name, 'schema'))
      return {
        name: share.name,
        schemas: await mapLimit(schemas, 4, async schema => ({
          name: schema.name,
          tables: (await client.listTables(share.name, schema.name)).map(t => t.table),
        })),
      }
    })
    if (flags.json) io.out(JSON.stringify({ endpoint: access.profile.endpoint, shares: tree }))
    else {
      for (const share of tree)
        for (const schema of share.schemas)
          for (const table of schema.tables)
            io.out(`${escapeName(share.name)}.${escapeName(schema.name)}.${escapeName(table)}`)
    }
    for (const note of refused) io.err(`snaptrain shares: ${note}; its contents are not listed`)
    return refused.length ? 1 : 0
  } catch (e) {
    if (e instanceof TableArgError) {
      io.err(`snaptrain shares: ${e.message} (see 'snaptrain shares --help')`)
      return 2
    }
    io.err(`snaptrain shares: ${(e as Error).message}`)
    return 1
  }
}
