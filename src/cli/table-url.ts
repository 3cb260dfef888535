/**
 * `--table <dir|url>` → the URL the reader opens. A local folder is served by the loopback
 * server so the reader always takes the HTTP path (DESIGN.md, headless contract); an http(s) URL
 * is used as is. Error messages that mention the loopback URL are mapped back to local paths,
 * because the user named a folder and the server's port means nothing to them.
 */
import { stat } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { serveDirectory } from '../serve/server.ts'
import type { TableAccess } from '../storage/types.ts'

/** Where a table lives for the duration of a command. */
export interface TableLocation {
  /** Table root URL, ending in '/'. */
  url: string
  /** What to call the table in output: the absolute folder path, or the URL. */
  display: string
  /** Rewrites loopback URLs in a message to local file paths (identity for remote tables). */
  localize(message: string): string
  /** Stops the loopback server, if one was started. */
  close(): Promise<void>
  /** A governed table's access (governed.ts): its resolver reads the table. */
  access?: TableAccess
}

/** Thrown when `--table` names neither an http(s) URL nor an existing folder. */
export class TableArgError extends Error {}

/** Throws TableArgError naming `flag` and `dir` unless `dir` is a folder. */
export async function requireFolder(dir: string, flag = '--table'): Promise<void> {
  const st = await stat(dir).catch(() => null)
  if (!st?.isDirectory()) throw new TableArgError(`${flag}: ${dir}: ${st ? 'not a folder' : 'no such folder'}`)
}

/**
 * Resolves `--table`. A folder is mounted under its own (%-encoded) name, e.g.
 * http://127.0.0.1:PORT/delta/, keeping names readable in messages; only that folder is served
 * (its siblings are not reachable through the server).
 */
export async function openTableLocation(input: string, cwd = process.cwd()): Promise<TableLocation> {
  if (/^https?:\/\//i.test(input)) {
    const url = input.endsWith('/') ? input : input + '/'
    return { url, display: url, localize: m => m, close: async () => {} }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(input) && !input.startsWith('file:')) {
    throw new TableArgError(`--table: unsupported URL scheme in '${input}' (use an http(s) URL or a local folder)`)
  }
  const dir = resolve(cwd, input.startsWith('file:') ? fileURLToPath(input) : input)
  await requireFolder(dir)
  const parent = dirname(dir)
  const name = basename(dir)
  const server = await serveDirectory(dir, name ? { mount: name } : {})
  const url = server.url + (name ? encodeURIComponent(name) + '/' : '')
  return { url, display: dir, localize: m => localizeUrls(m, server.url, parent), close: () => server.close() }
}

/**
 * The address a run records for a table it opened (TrainConfig.tableAddress), never this
 * process's loopback URL for it: a governed table as the user named it (`s3://…`, `uc:…`; a share
 * as its REST URL at its own server, `path` keeping the profile), a folder as its `file:` URL, an
 * http(s) URL as given.
 */
export function tableAddress(t: { url: string; path?: string; access?: TableAccess }): string {
  if (t.access) return t.access.kind === 'share' || !t.path ? t.url : t.path
  return t.path ? `${pathToFileURL(t.path).href}/` : t.url
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
