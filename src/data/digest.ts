/**
 * Plan digest: a stable 64-bit fingerprint (16 hex digits) of everything that decides which rows a
 * plan delivers and in which table order — so a cursor written for another plan is refused.
 * Synchronous FNV-1a over two independent 32-bit lanes: not cryptographic (cursors are not a
 * security boundary), but identical in Node and browsers and fast over large live masks.
 */
import { FNV_OFFSET, fnv1aStep } from '../util/hash.ts'
import type { PlanFile, Unit } from './types.ts'

/** Incremental two-lane FNV-1a hasher over strings and uint32 words (lane b: its own basis, bytes xor 0x5a). */
export class Digest {
  private a = FNV_OFFSET
  private b = 0x050c5d1f

  /** Mixes a string (UTF-16 code units, length-prefixed so "ab"+"c" ≠ "a"+"bc"). */
  text(value: string): this {
    this.word(value.length)
    for (let i = 0; i < value.length; i++) this.word(value.charCodeAt(i))
    return this
  }

  /** Mixes one unsigned 32-bit word, byte by byte. */
  word(value: number): this {
    for (let shift = 0; shift < 32; shift += 8) {
      const byte = (value >>> shift) & 0xff
      this.a = fnv1aStep(this.a, byte)
      this.b = fnv1aStep(this.b, byte ^ 0x5a)
    }
    return this
  }

  /** 16 lowercase hex digits. */
  hex(): string {
    return (this.a >>> 0).toString(16).padStart(8, '0') + (this.b >>> 0).toString(16).padStart(8, '0')
  }
}

/** What the plan digest covers. */
export interface DigestInput {
  tableUrl: string
  version: number
  columns: string[]
  filter?: string
  label?: string
  files: Pick<PlanFile, 'path' | 'size'>[]
  units: Unit[]
}

/**
 * Digest of (table URL, version, columns, filter, label, file paths + sizes, and per unit its
 * file, row group, range and live rows). Same input ⇒ same string, in every runtime.
 */
export function planDigest(input: DigestInput): string {
  const d = new Digest()
  d.text(JSON.stringify([input.tableUrl, input.version, input.columns, input.filter ?? null, input.label ?? null]))
  d.word(input.files.length)
  for (const file of input.files) d.text(file.path).text(String(file.size))
  d.word(input.units.length)
  for (const unit of input.units) {
    d.word(unit.fileIndex).word(unit.rowGroup).word(unit.rowStart).word(unit.rowEnd).word(unit.liveRows)
    if (unit.live) for (const row of unit.live) d.word(row)
  }
  return d.hex()
}
