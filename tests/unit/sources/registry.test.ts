/**
 * The table-source registry (src/sources/index.ts): a new source is one registration — a fake
 * `mem:` source whose tables live in memory, behind a grant its resolver adds, opens and reads
 * through the normal openSnapshot path, in this thread and (from the plain-data access, its module
 * not yet loaded) as a worker rebuilds it; addresses are recognised in registry order, and what
 * no source takes is refused naming the address and the known kinds.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve, sep } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  accessResolver,
  listTables,
  openTable,
  recordedAddress,
  registerSource,
  sourceKinds,
  sourceOf,
  sourceOfAccess,
  TableArgError,
  tableResolver,
  type OpenContext,
  type SourceDescription,
  type SourceHost,
  type TableSource,
} from '../../../src/sources/index.ts'
import type { TableAccess } from '../../../src/storage/types.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import type { FetchLike, UrlResolver } from '../../../src/table/types.ts'

const TABLE = resolve(import.meta.dirname, '../../conformance/dat/basic_append/delta')
const ORIGIN = 'http://mem.test'
const GRANT = 'grant-7'

/** The in-memory tables: name → (path in the table → bytes). */
const memory = new Map<string, Map<string, Uint8Array<ArrayBuffer>>>()

beforeAll(() => {
  const files = new Map<string, Uint8Array<ArrayBuffer>>()
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else files.set(relative(TABLE, path).split(sep).join('/'), new Uint8Array(readFileSync(path)))
    }
  }
  walk(TABLE)
  memory.set('basic', files)
})

/** Serves the in-memory tables at `${ORIGIN}/<name>/…` (GET, HEAD, single ranges) to requests carrying the grant. */
const memFetch: FetchLike = async (input, init) => {
  const headers = new Headers(init?.headers)
  if (headers.get('x-mem-grant') !== GRANT) return new Response('no grant', { status: 403, statusText: 'Forbidden' })
  const url = new URL(input)
  const [, name, ...rest] = url.pathname.split('/')
  const bytes = memory.get(name ?? '')?.get(rest.map(decodeURIComponent).join('/'))
  if (!bytes) return new Response('Not Found', { status: 404, statusText: 'Not Found' })
  if ((init?.method ?? 'GET').toUpperCase() === 'HEAD') {
    return new Response(null, { status: 200, headers: { 'Content-Length': String(bytes.length) } })
  }
  const range = /^bytes=(\d+)-(\d+)$/.exec(headers.get('Range') ?? '')
  if (!range) return new Response(bytes, { status: 200, headers: { 'Content-Length': String(bytes.length) } })
  const [start, end] = [Number(range[1]), Math.min(Number(range[2]), bytes.length - 1)]
  return new Response(bytes.subarray(start, end + 1), {
    status: 206,
    headers: { 'Content-Range': `bytes ${start}-${end}/${bytes.length}`, 'Content-Length': String(end - start + 1) },
  })
}

interface MemAccess {
  kind: 'mem'
  name: string
  grant: string
}

/** The fake source's description; `loads` counts how often its module was loaded. */
function memSource(): SourceDescription & { loads: number } {
  const resolver = (_tableUrl: string, access: MemAccess): UrlResolver => ({
    async resolve(url) {
      if (!url.startsWith(ORIGIN)) throw new Error(`${url} is not in memory`)
      return { url, headers: { 'x-mem-grant': access.grant } }
    },
    rejected: async () => false,
  })
  const module: TableSource<MemAccess> = {
    async open(address) {
      const name = address.slice('mem:'.length)
      if (!memory.has(name)) throw new TableArgError(`--table: ${address}: no such table in memory`)
      const access: MemAccess = { kind: 'mem', name, grant: GRANT }
      const url = `${ORIGIN}/${name}/`
      return {
        url,
        display: address,
        path: address,
        access: access as unknown as TableAccess,
        localize: m => m,
        close: async () => {},
      }
    },
    resolver,
  }
  const description = {
    kind: 'mem',
    form: "memory 'mem:<name>'",
    accessKind: 'mem',
    loads: 0,
    recognise: (address: string) => address.startsWith('mem:'),
    load: async () => {
      description.loads++
      return module as unknown as TableSource
    },
  }
  return description
}

/** A host that lends nothing (the sources under test need none of it). */
const bareHost: SourceHost = {
  env: {},
  serveFolder: async input => {
    throw new Error(`serveFolder(${input}) was not expected`)
  },
  readProfile: async () => {
    throw new Error('readProfile was not expected')
  },
  aws: async () => {
    throw new Error('aws was not expected')
  },
}
const ctx: OpenContext = { flag: '--table', host: bareHost, http: {} }

let unregister: (() => void) | undefined
afterEach(() => {
  unregister?.()
  unregister = undefined
})

describe('a new table source is one registration', () => {
  it('opens and reads a table through openSnapshot, its resolver reaching storage', async () => {
    const mem = memSource()
    unregister = registerSource(mem)
    expect(sourceKinds()[0]).toBe('mem')
    const opened = await openTable('mem:basic', ctx)
    expect(opened.url).toBe(`${ORIGIN}/basic/`)
    expect(recordedAddress(opened, p => `file://${p}`)).toBe('mem:basic')
    const resolver = tableResolver(opened.url, opened.access!)
    const snapshot = await openSnapshot(opened.url, { fetch: memFetch, resolver })
    expect(snapshot.version).toBe(1)
    const rows = await readRows(snapshot, { fetch: memFetch, resolver })
    expect(rows.map(r => r.letter).sort()).toEqual(['a', 'b', 'c', 'd', 'e'])
    // The grant is the resolver's: without it the same read is refused (so the source is what reads).
    await expect(openSnapshot(opened.url, { fetch: memFetch })).rejects.toThrow(/403/)
    expect(mem.loads).toBe(1)
  })

  it('a worker rebuilds the resolver from the plain-data access; the module loads on the first request', async () => {
    const mem = memSource()
    unregister = registerSource(mem)
    const access = structuredClone({ kind: 'mem', name: 'basic', grant: GRANT }) as unknown as TableAccess
    const resolver = accessResolver(`${ORIGIN}/basic/`, access)
    expect(mem.loads).toBe(0)
    const snapshot = await openSnapshot(`${ORIGIN}/basic/`, { fetch: memFetch, resolver })
    expect((await readRows(snapshot, { fetch: memFetch, resolver })).length).toBe(5)
    expect(mem.loads).toBe(1)
  })

  it('once removed, its addresses and accesses are no longer its', async () => {
    unregister = registerSource(memSource())
    unregister()
    unregister = undefined
    expect(sourceKinds()).not.toContain('mem')
    expect(sourceOf('mem:basic').kind).toBe('folder') // no scheme with '//': a relative folder name
    expect(() => sourceOfAccess({ kind: 'mem' } as unknown as TableAccess)).toThrow(
      "table access of kind 'mem' is not supported",
    )
  })

  it('refuses a second source of the same kind or access kind', () => {
    unregister = registerSource(memSource())
    expect(() => registerSource(memSource())).toThrow("table source 'mem' is already registered")
    expect(() => registerSource({ ...memSource(), kind: 'mem2', accessKind: 's3' })).toThrow(
      "table access kind 's3' already has a source",
    )
  })
})

describe('address recognition', () => {
  it('checks the sources in order: sharing, s3, unity-catalog, http, folder', () => {
    expect(sourceKinds()).toEqual(['sharing', 's3', 'unity-catalog', 'http', 'folder'])
    const cases: Record<string, string> = {
      'profiles/team.share#retail.sales.orders': 'sharing',
      'C:\\profiles\\p.share#a.b.c': 'sharing',
      's3://bucket/tables/t': 's3',
      'S3A://bucket/t': 's3',
      'uc:main.web.clicks': 'unity-catalog',
      'UC:main.web.clicks': 'unity-catalog',
      'https://host/tables/t': 'http',
      'HTTP://host/t#a.b.c': 'http', // a URL with a fragment is no share address
      'tables/clicks': 'folder',
      '/data/tables/clicks': 'folder',
      'file:///data/tables/clicks': 'folder',
      'C:\\data\\clicks': 'folder',
    }
    const seen = Object.fromEntries(Object.keys(cases).map(a => [a, sourceOf(a).kind]))
    expect(seen).toEqual(cases)
  })

  it('a registered source comes first, so it may claim addresses a built-in one would take', () => {
    const special = {
      ...memSource(),
      kind: 'special',
      accessKind: undefined,
      recognise: (a: string) => a.startsWith('s3://special/'),
    }
    unregister = registerSource(special)
    expect(sourceOf('s3://special/t').kind).toBe('special')
    expect(sourceOf('s3://other/t').kind).toBe('s3')
  })

  it('hands a folder to the host to serve, naming the flag', async () => {
    const served: string[] = []
    const host = {
      ...bareHost,
      serveFolder: async (input: string, flag: string) => {
        served.push(`${flag} ${input}`)
        return {
          url: 'http://127.0.0.1:1/t/',
          display: '/abs/t',
          path: '/abs/t',
          localize: (m: string) => m,
          close: async () => {},
        }
      },
    }
    const opened = await openTable('file:///abs/t', { ...ctx, flag: '--valid-table', host })
    expect(served).toEqual(['--valid-table file:///abs/t'])
    expect(recordedAddress(opened, p => `file://${p}/`)).toBe('file:///abs/t/')
    expect(recordedAddress(await openTable('https://h/t', ctx), () => 'x')).toBe('https://h/t/')
  })
})

describe('errors', () => {
  it('an address no source takes is refused naming the flag, the address and the known kinds', async () => {
    const error = (() => {
      try {
        sourceOf('gs://bucket/t', '--valid-table')
      } catch (e) {
        return e as Error
      }
    })()
    expect(error).toBeInstanceOf(TableArgError)
    expect(error?.message).toContain("--valid-table: 'gs://bucket/t'")
    for (const form of [
      "'<profile-file>#<share>.<schema>.<table>'",
      "'s3://<bucket>/<prefix>'",
      "'uc:<catalog>.<schema>.<table>'",
      "'http(s)://…'",
      'a local folder',
    ]) {
      expect(error?.message).toContain(form)
    }
    await expect(openTable('abfss://c@a.dfs.core.windows.net/t', ctx)).rejects.toThrow(
      /'abfss:\/\/c@a\.dfs\.core\.windows\.net\/t' is no table address/,
    )
  })

  it('an access kind no source serves is refused by name, at once', () => {
    const future = { kind: 'azure-sas', token: 'x' } as unknown as TableAccess
    expect(() => accessResolver('https://h/t/', future)).toThrow("table access of kind 'azure-sas' is not supported")
  })

  it('a catalog address without its settings names the flag and the variables', async () => {
    await expect(openTable('uc:main.web.t', { ...ctx, flag: '--valid-table' })).rejects.toThrow(
      /^--valid-table: uc:main\.web\.t: set SNAPTRAIN_UC_ENDPOINT .* and SNAPTRAIN_UC_TOKEN$/,
    )
  })

  it('listing where a source cannot list says which source', async () => {
    await expect(listTables('s3://bucket/tables/')).rejects.toThrow(
      /s3:\/\/bucket\/tables\/: a S3 .* cannot list its tables/,
    )
  })
})
