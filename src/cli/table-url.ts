/**
 * `--table` → the table a command reads, through the table sources (src/sources): a governed
 * table (a share, S3, Unity Catalog) is opened with what this process lends its source (the
 * profile file, the AWS settings, the environment); a local folder is served by the loopback
 * server so the reader always takes the HTTP path (DESIGN.md, headless contract); an http(s) URL
 * is used as is. Error messages that mention the loopback URL are mapped back to local paths,
 * because the user named a folder and the server's port means nothing to them.
 */
import { stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { serveDirectory, type ServedDirectory, type ServeOptions } from '../serve/server.ts'
import {
  openTable,
  recordedAddress,
  TableArgError,
  type OpenedTable,
  type SourceHost,
  type SourceHttp,
} from '../sources/index.ts'
import type { TableAccess } from '../storage/types.ts'
import { awsSettings } from './aws-credentials.ts'
import { readProfileFile } from './profile-file.ts'

/** Where a table lives for the duration of a command. */
export type TableLocation = OpenedTable

/** Throws TableArgError naming `flag` and `dir` unless `dir` is a folder. */
export async function requireFolder(dir: string, flag = '--table'): Promise<void> {
  const st = await stat(dir).catch(() => null)
  if (!st?.isDirectory()) throw new TableArgError(`${flag}: ${dir}: ${st ? 'not a folder' : 'no such folder'}`)
}

/** How this process serves a local folder for a source (the page's tables answer CORS to the page). */
export interface HostOptions {
  /** What relative paths resolve against (default the working directory). */
  cwd?: string
  /** Environment (default process.env). */
  env?: Record<string, string | undefined>
  /** CORS of a served folder (serve/server.ts ServeOptions.cors). */
  cors?: ServeOptions['cors']
  /** Each served folder is added here while it is open. */
  served?: Set<ServedDirectory>
}

/** What this process lends the table sources: its files, environment and loopback server. */
export function cliHost(opts: HostOptions = {}): SourceHost {
  const cwd = opts.cwd ?? process.cwd()
  const env = opts.env ?? process.env
  return {
    env,
    serveFolder: (input, flag) => serveFolder(input, flag, cwd, opts),
    readProfile: (path, flag) => readProfileFile(path, flag, cwd),
    aws: () => awsSettings(env),
  }
}

/**
 * Resolves `--table` (errors name `flag`). A folder is mounted under its own (%-encoded) name,
 * e.g. http://127.0.0.1:PORT/delta/, keeping names readable in messages; only that folder is
 * served (its siblings are not reachable through the server).
 */
export async function openTableLocation(
  input: string,
  cwd = process.cwd(),
  opts: { flag?: string; http?: SourceHttp } & Omit<HostOptions, 'cwd'> = {},
): Promise<TableLocation> {
  return openTable(input, { flag: opts.flag ?? '--table', host: cliHost({ ...opts, cwd }), http: opts.http ?? {} })
}

async function serveFolder(input: string, flag: string, cwd: string, opts: HostOptions): Promise<OpenedTable> {
  const dir = resolve(cwd, /^file:/i.test(input) ? fileURLToPath(input) : input)
  await requireFolder(dir, flag)
  const parent = dirname(dir)
  const name = basename(dir)
  const server = await serveDirectory(dir, {
    ...(name ? { mount: name } : {}),
    ...(opts.cors ? { cors: opts.cors } : {}),
  })
  opts.served?.add(server)
  return {
    url: server.url + (name ? `${encodeURIComponent(name)}/` : ''),
    display: dir,
    path: dir,
    localize: m => localizeUrls(m, server.url, parent),
    close: () => {
      opts.served?.delete(server)
      return server.close()
    },
  }
}

/**
 * The address a run records for a table it opened (TrainConfig.tableAddress), never this
 * process's loopback URL for it: a governed table as its source says (`s3://…`, `uc:…` as the
 * user named it; a share as its REST URL at its own server, `path` keeping the profile), a folder
 * as its `file:` URL, an http(s) URL as given.
 */
export function tableAddress(t: { url: string; path?: string; access?: TableAccess }): string {
  return recordedAddress(t, path => `${pathToFileURL(path).href}/`)
}

/**
 * Replaces each `serverUrl…` in `message` with the local path it serves (decoded once, as the
 * server decodes it). Trailing punctuation that ends a sentence is not part of the path.
 */
export function localizeUrls(message: string, serverUrl: string, root: string): string {
  const pattern = new RegExp(escapeRegExp(serverUrl) + '([^\\s"\'<>]*)', 'g')
  return message.replace(pattern, (_all, rest: string) => {
    const trail = /[:,;.)\]]+$/.exec(rest)?.[0] ?? ''
    const path = rest.slice(0, rest.length - trail.length).split('?')[0]!
    return join(root, safeDecode(path)) + trail
  })
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
