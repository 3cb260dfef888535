/**
 * Profile files and share addresses on the command line: `--table <profile-file>#share.schema.table`
 * (the protocol's convention) and `snaptrain shares --profile F`. The file is read on every run —
 * a resumed sweep re-reads it, so a provider's new token is picked up — and never copied anywhere.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import {
  parseProfile,
  parseShareAddress,
  shareTableUrl,
  type ShareAccess,
  type ShareCoordinates,
} from '../sharing/index.ts'
import { TableArgError } from './table-url.ts'

/** A shared table named on the command line. */
export interface SharedTableArg {
  /** The table's stable URL (its REST resource under the profile's endpoint). */
  url: string
  /** `<absolute profile path>#share.schema.table`, for output. */
  display: string
  access: ShareAccess
  table: ShareCoordinates
}

/** Reads and parses a profile file; errors name the flag and the file. */
export async function readProfileFile(path: string, flag: string, cwd = process.cwd()): Promise<ShareAccess> {
  const file = resolve(cwd, path)
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new TableArgError(`${flag}: profile ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`)
  })
  return { kind: 'share', profile: parseProfile(text, file), source: file }
}

/** `<profile>#share.schema.table` → the shared table (the profile read and checked). */
export async function sharedTableArg(input: string, flag: string, cwd = process.cwd()): Promise<SharedTableArg> {
  const address = parseShareAddress(input)
  const access = await readProfileFile(address.profile, flag, cwd)
  const { share, schema, table } = address.table
  return {
    url: shareTableUrl(access.profile.endpoint, address.table),
    display: `${access.source}#${share}.${schema}.${table}`,
    access,
    table: address.table,
  }
}
