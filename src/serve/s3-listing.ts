/**
 * S3 ListObjectsV2 over a local directory, so a plain folder answers the same listing request a
 * bucket does (`GET /?list-type=2&prefix=…`). Used by the CLI's loopback server and by the vite
 * dev-server plugin for public/, hence no server code here: a pure directory → XML function.
 * Reference: https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html
 */
import { lstat, readdir, realpath, stat } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import { join, sep } from 'node:path'

/** Query parameters of a ListObjectsV2 request (already %-decoded). */
export interface ListOptions {
  /** Only keys starting with this string; '' lists everything. */
  prefix?: string
  /** Roll keys up to the first delimiter after the prefix into CommonPrefixes (S3 allows any string; '/' is usual). */
  delimiter?: string
  /** Opaque token from a previous page's NextContinuationToken. */
  continuationToken?: string
  /** List keys after this one (ignored when continuationToken is given, as in S3). */
  startAfter?: string
  /** Page size counting Contents and CommonPrefixes together; default and maximum 1000 (as S3). */
  maxKeys?: number
  /** 'url' → keys and prefixes in the response are URL-encoded (S3 `encoding-type=url`). */
  encodingType?: 'url'
  /** Bucket name in `<Name>`; default 'local'. */
  bucket?: string
}

/** One object of the listing. */
export interface ListedObject {
  /** Path relative to the root with '/' separators. */
  key: string
  /** Bytes. */
  size: number
  /** Modification time, ms since epoch. */
  mtimeMs: number
  /** Quoted entity tag, as sent in the ETag header. */
  etag: string
}

/** S3's page size limit; a larger max-keys is clamped to it, as S3 does. */
export const MAX_KEYS = 1000

/**
 * Entity tag of a file: size and mtime in hex, quoted. Not an MD5 like S3's (hashing every file
 * on each listing would cost a full read); it still changes whenever the content is rewritten.
 */
export function fileEtag(st: Pick<Stats, 'size' | 'mtimeMs'>): string {
  return `"${st.size.toString(16)}-${Math.floor(st.mtimeMs).toString(16)}"`
}

/**
 * Renders the ListObjectsV2 XML for `rootDir`: keys are paths relative to the root with '/'
 * separators, ordered by UTF-8 bytes as S3 orders them; `IsTruncated` + `NextContinuationToken`
 * page through more than `maxKeys` entries. Symlinks are listed only when they resolve to a file
 * inside the root (never followed into directories, so no cycles and no escape).
 */
export async function renderListObjectsV2(rootDir: string, opts: ListOptions = {}): Promise<string> {
  const prefix = opts.prefix ?? ''
  const page =
    opts.delimiter === '/' ? await delimitedPage(rootDir, opts) : paginate(await listObjects(rootDir, prefix), opts)
  return listingXml(page, opts)
}

/** A folder entry as a listing sees it: its key part (a folder's ends in '/') and its UTF-8 bytes for ordering. */
interface FolderEntry {
  name: string
  part: string
  bytes: Buffer
  isDir: boolean
}

/** Sorted entries per folder, valid while the folder's mtime is unchanged (adding or removing an entry changes it). */
const folderCache = new Map<string, { mtimeMs: number; entries: FolderEntry[] }>()
const FOLDER_CACHE_SIZE = 16

/**
 * One page of a '/'-delimited listing, from the one folder the prefix points into (what Delta
 * readers ask: `prefix=<table>/_delta_log/&delimiter=/`). The folder is read and sorted once per
 * change, each page finds its start by binary search and stats only the files it returns, so
 * listing n keys costs O(n) in all rather than a whole folder walk per page of 1000.
 */
async function delimitedPage(rootDir: string, opts: ListOptions): Promise<Page> {
  const prefix = opts.prefix ?? ''
  const maxKeys = Math.min(Math.max(opts.maxKeys ?? MAX_KEYS, 0), MAX_KEYS)
  const page: Page = { contents: [], commonPrefixes: [] }
  const dirKey = prefix.slice(0, prefix.lastIndexOf('/') + 1)
  // A prefix is client input: '..' in it must not walk out of the root.
  if (dirKey.split('/').some(s => s === '..' || s === '.')) return page
  const root = await realpath(rootDir)
  const dir = join(root, ...dirKey.split('/').filter(Boolean))
  // Only real folders are listed (as the walk does): a linked folder would escape or loop.
  if ((await realpath(dir).catch(() => null)) !== dir) return page
  const entries = await folderEntries(dir)
  const after = opts.continuationToken !== undefined ? decodeToken(opts.continuationToken) : opts.startAfter
  const namePrefix = Buffer.from(prefix.slice(dirKey.length), 'utf8')
  const afterPart = after?.startsWith(dirKey) ? Buffer.from(after.slice(dirKey.length), 'utf8') : undefined
  // Keys under the folder are dirKey + part; entries with the name prefix are one run in byte order.
  let i = lowerBound(entries, namePrefix)
  if (after !== undefined && !after.startsWith(dirKey) && compareKeys(after, dirKey) >= 0) i = entries.length
  if (afterPart) i = Math.max(i, upperBound(entries, afterPart))
  for (; i < entries.length; i++) {
    const e = entries[i]
    if (!e.bytes.subarray(0, namePrefix.length).equals(namePrefix)) break
    const key = dirKey + e.part
    const path = join(dir, e.name)
    // A folder is a common prefix when it holds a file (S3 has no empty "folders"); a file needs its stat.
    const st = e.isDir ? undefined : await entryStat(root, path)
    if (e.isDir ? !(await holdsFile(root, path)) : !st || st === 'dir') continue
    if (page.contents.length + page.commonPrefixes.length === maxKeys) {
      page.nextToken = encodeToken(lastEntry(page))
      break
    }
    if (st && st !== 'dir') page.contents.push({ key, size: st.size, mtimeMs: st.mtimeMs, etag: fileEtag(st) })
    else page.commonPrefixes.push(key)
  }
  return page
}

async function folderEntries(dir: string): Promise<FolderEntry[]> {
  const mtimeMs = (await stat(dir)).mtimeMs
  const cached = folderCache.get(dir)
  if (cached && cached.mtimeMs === mtimeMs) return cached.entries
  const dirents = await readdir(dir, { withFileTypes: true }).catch(() => [])
  const entries = dirents
    .map(d => {
      const part = d.isDirectory() ? `${d.name}/` : d.name
      return { name: d.name, part, bytes: Buffer.from(part, 'utf8'), isDir: d.isDirectory() }
    })
    .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
  folderCache.delete(dir)
  folderCache.set(dir, { mtimeMs, entries })
  if (folderCache.size > FOLDER_CACHE_SIZE) folderCache.delete(folderCache.keys().next().value!)
  return entries
}

/** First index whose bytes are ≥ `key`. */
function lowerBound(entries: FolderEntry[], key: Buffer): number {
  let lo = 0,
    hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (Buffer.compare(entries[mid].bytes, key) < 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** First index whose rolled-up part is > `key` (a folder 'x/' is past every key under it). */
function upperBound(entries: FolderEntry[], key: Buffer): number {
  let lo = 0,
    hi = entries.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (Buffer.compare(entries[mid].bytes, key) <= 0) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Whether a folder holds a file somewhere below it (what makes it a common prefix). */
async function holdsFile(root: string, dir: string): Promise<boolean> {
  const dirents = await readdir(dir, { withFileTypes: true }).catch(() => [])
  for (const d of dirents) {
    const path = join(dir, d.name)
    if (d.isDirectory() ? await holdsFile(root, path) : (await entryStat(root, path)) instanceof Object) return true
  }
  return false
}

/** All files under `rootDir` whose key starts with `prefix`, sorted by key (UTF-8 byte order). */
export async function listObjects(rootDir: string, prefix = ''): Promise<ListedObject[]> {
  const root = await realpath(rootDir)
  // Only walk the folder the prefix points into: '_delta_log/0000' → walk '_delta_log/'.
  const dirKey = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) : ''
  const out: ListedObject[] = []
  await walk(root, dirKey, prefix, out)
  return out.sort((a, b) => compareKeys(a.key, b.key))
}

/** Orders keys as S3 does: by their UTF-8 bytes (differs from UTF-16 order for astral/emoji keys). */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

async function walk(root: string, dirKey: string, prefix: string, out: ListedObject[]): Promise<void> {
  // A prefix is client input: '..' in it must not walk out of the root.
  if (dirKey.split('/').some(s => s === '..' || s === '.')) return
  const dir = join(root, ...dirKey.split('/').filter(Boolean))
  let names: string[]
  try {
    names = await readdir(dir)
  } catch {
    return // a prefix naming no folder lists nothing, as in S3
  }
  for (const name of names) {
    const key = dirKey + name
    if (!key.startsWith(prefix) && !prefix.startsWith(key + '/')) continue
    const st = await entryStat(root, join(dir, name))
    if (st === 'dir') await walk(root, key + '/', prefix, out)
    else if (st && key.startsWith(prefix)) out.push({ key, size: st.size, mtimeMs: st.mtimeMs, etag: fileEtag(st) })
  }
}

/** 'dir' for a real directory, Stats for a file (or a symlink to a file inside root), else null. */
async function entryStat(root: string, path: string): Promise<Stats | 'dir' | null> {
  const l = await lstat(path).catch(() => null)
  if (!l) return null
  if (l.isDirectory()) return 'dir'
  if (l.isFile()) return l
  if (!l.isSymbolicLink()) return null
  const target = await realpath(path).catch(() => null)
  if (!target || !(target === root || target.startsWith(root + sep))) return null
  const st = await stat(target).catch(() => null)
  return st?.isFile() ? st : null
}

/** One page of a listing: objects and rolled-up common prefixes, in key order. */
/** One page of a listing: its objects, rolled-up prefixes and the token of the next page. */
export interface Page {
  contents: ListedObject[]
  commonPrefixes: string[]
  nextToken?: string
}

function paginate(objects: ListedObject[], opts: ListOptions): Page {
  const prefix = opts.prefix ?? ''
  const maxKeys = Math.min(Math.max(opts.maxKeys ?? MAX_KEYS, 0), MAX_KEYS)
  const after = opts.continuationToken !== undefined ? decodeToken(opts.continuationToken) : opts.startAfter
  const page: Page = { contents: [], commonPrefixes: [] }
  let count = 0
  for (const obj of objects) {
    const entry = rollUp(obj.key, prefix, opts.delimiter)
    if (after !== undefined && compareKeys(entry, after) <= 0) continue
    if (entry === page.commonPrefixes.at(-1)) continue
    if (count === maxKeys) {
      page.nextToken = encodeToken(lastEntry(page))
      break
    }
    if (entry === obj.key) page.contents.push(obj)
    else page.commonPrefixes.push(entry)
    count++
  }
  return page
}

/** The key itself, or its common prefix when a delimiter occurs after the listing prefix. */
function rollUp(key: string, prefix: string, delimiter?: string): string {
  if (!delimiter) return key
  const i = key.indexOf(delimiter, prefix.length)
  return i < 0 ? key : key.slice(0, i + delimiter.length)
}

function lastEntry(page: Page): string {
  const k = page.contents.at(-1)?.key ?? ''
  const p = page.commonPrefixes.at(-1) ?? ''
  return compareKeys(k, p) >= 0 ? k : p
}

/**
 * Tokens are opaque to clients; ours is the last returned key or common prefix in base64url.
 * Resuming compares rolled-up entries, so the keys under a common prefix already returned (which
 * roll up to that same prefix) are skipped rather than listed again.
 */
function encodeToken(lastKey: string): string {
  return Buffer.from(lastKey, 'utf8').toString('base64url')
}

function decodeToken(token: string): string {
  return Buffer.from(token, 'base64url').toString('utf8')
}

/** The ListObjectsV2 XML of one page (`opts` as the request asked). */
export function listingXml(page: Page, opts: ListOptions): string {
  const enc = (s: string) => xmlEscape(opts.encodingType === 'url' ? urlEncodeKey(s) : s)
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">',
    `<Name>${xmlEscape(opts.bucket ?? 'local')}</Name>`,
    `<Prefix>${enc(opts.prefix ?? '')}</Prefix>`,
    opts.delimiter ? `<Delimiter>${enc(opts.delimiter)}</Delimiter>` : '',
    `<MaxKeys>${Math.min(Math.max(opts.maxKeys ?? MAX_KEYS, 0), MAX_KEYS)}</MaxKeys>`,
    `<KeyCount>${page.contents.length + page.commonPrefixes.length}</KeyCount>`,
    `<IsTruncated>${page.nextToken !== undefined}</IsTruncated>`,
    opts.continuationToken !== undefined
      ? `<ContinuationToken>${xmlEscape(opts.continuationToken)}</ContinuationToken>`
      : '',
    page.nextToken !== undefined ? `<NextContinuationToken>${page.nextToken}</NextContinuationToken>` : '',
    opts.startAfter !== undefined ? `<StartAfter>${enc(opts.startAfter)}</StartAfter>` : '',
    opts.encodingType ? `<EncodingType>${opts.encodingType}</EncodingType>` : '',
    ...page.contents.map(o => contentsXml(o, enc)),
    ...page.commonPrefixes.map(p => `<CommonPrefixes><Prefix>${enc(p)}</Prefix></CommonPrefixes>`),
    '</ListBucketResult>',
  ]
  return lines.filter(Boolean).join('\n') + '\n'
}

function contentsXml(o: ListedObject, enc: (s: string) => string): string {
  return (
    `<Contents><Key>${enc(o.key)}</Key><LastModified>${new Date(o.mtimeMs).toISOString()}</LastModified>` +
    `<ETag>${xmlEscape(o.etag)}</ETag><Size>${o.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`
  )
}

/** S3's encoding-type=url: every byte but unreserved characters and '/' is %-escaped. */
function urlEncodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/')
}

/** Escapes text for XML 1.0 element content; control characters XML cannot carry become U+FFFD. */
export function xmlEscape(s: string): string {
  return (
    s
      .replace(/[&<>"']/g, c => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '\ufffd')
  )
}
