/**
 * Profile files on the command line: the profile of `--table <profile-file>#share.schema.table`
 * (the protocol's convention; src/sources/sharing opens it) and `snaptrain shares --profile F`. The file is read on every run —
 * a resumed sweep re-reads it, so a provider's new token is picked up — and never copied anywhere.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parseProfile, type ShareAccess } from '../sharing/index.ts'
import { TableArgError } from '../sources/types.ts'

/** Reads and parses a profile file; errors name the flag and the file. */
export async function readProfileFile(path: string, flag: string, cwd = process.cwd()): Promise<ShareAccess> {
  const file = resolve(cwd, path)
  const text = await readFile(file, 'utf8').catch((e: NodeJS.ErrnoException) => {
    throw new TableArgError(`${flag}: profile ${file}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`)
  })
  return { kind: 'share', profile: parseProfile(text, file), source: file }
}
