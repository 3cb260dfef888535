/**
 * A continue bundle as one download, continue.zip: the bundle's files (bundle.ts continueFiles,
 * named `continue/<name>`) stored under the same names, so unzipping gives the folder `snaptrain
 * train` writes, byte for byte. Deterministic: a fixed timestamp, files in the bundle's order.
 */
import { zipSync, type Zippable } from 'fflate'
import type { RunFile } from '../run/artifacts.ts'

/** The download's file name. */
export const CONTINUE_ZIP = 'continue.zip'

/** Every entry's modification time: the zip format's earliest (DOS time), so the same files give the same bytes. */
const MTIME = new Date(1980, 0, 1, 0, 0, 0)

/** The zip of `files` (text as UTF-8), entries in order, deflated. */
export function bundleZip(files: readonly RunFile[]): Uint8Array<ArrayBuffer> {
  const entries: Zippable = {}
  for (const f of files) {
    if (f.name in entries) throw new RangeError(`continue.zip: ${f.name} listed twice`)
    entries[f.name] = [typeof f.data === 'string' ? new TextEncoder().encode(f.data) : f.data, { mtime: MTIME }]
  }
  return zipSync(entries, { level: 6 }) as Uint8Array<ArrayBuffer>
}
