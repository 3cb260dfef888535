/**
 * Value conversion of the fast column path (page-decode.ts): raw parquet page values (as
 * hyparquet's readPlain returns them) → the typed array of an encoding, without building one JS
 * value per row. Every conversion here yields exactly what decode.ts yields from hyparquet's
 * values for the same column (same hashes, same float rounding), so which path decoded a column
 * never shows in the result.
 */
import type { DecodedArray, SchemaElement } from 'hyparquet'
import { hashBytes, hashInt64Words, hashInteger, hashString } from '../util/hash.ts'

/** Typed arrays the fast path produces. */
export type FastValues = Float32Array | Int32Array | Uint32Array

/** Encodings the fast path decodes (scalar per row, or a flat list of floats). */
export type FastEncoding = 'float32' | 'int32' | 'hash32' | 'fixed_list'

const utf8 = new TextDecoder()

/**
 * Whether the fast path can decode a leaf of this element as `encoding`: plain numbers (no
 * converted or logical type, so no dates, timestamps or decimals), strings and binary for hash32.
 */
export function fastSupported(element: SchemaElement, encoding: string): encoding is FastEncoding {
  const annotated = element.converted_type ?? element.logical_type?.type
  const plainNumber =
    !annotated &&
    (element.type === 'INT32' || element.type === 'INT64' || element.type === 'FLOAT' || element.type === 'DOUBLE')
  switch (encoding) {
    case 'float32':
      return plainNumber
    case 'fixed_list':
      return !annotated && (element.type === 'FLOAT' || element.type === 'DOUBLE')
    case 'int32':
      return !annotated && element.type === 'INT32'
    case 'hash32':
      return (
        (plainNumber && element.type !== 'FLOAT' && element.type !== 'DOUBLE') ||
        (element.type === 'BYTE_ARRAY' && (!annotated || annotated === 'UTF8' || annotated === 'STRING'))
      )
    default:
      return false
  }
}

/** A new, empty output array of the encoding's type. */
export function allocate(encoding: FastEncoding, n: number): FastValues {
  return encoding === 'int32' ? new Int32Array(n) : encoding === 'hash32' ? new Uint32Array(n) : new Float32Array(n)
}

/**
 * Raw values (a typed array, or an array of Uint8Array for BYTE_ARRAY) in the encoding's
 * domain: floats as float32, ints as int32, hash32 as the hashes decode.ts computes
 * (int64 over its two words, int32 as int64, UTF-8 strings by their decoded text, binary by bytes).
 * Returns undefined for an input it does not know (the caller falls back to hyparquet).
 */
export function toDomain(raw: DecodedArray, encoding: FastEncoding, element: SchemaElement): FastValues | undefined {
  if (encoding === 'int32') return raw instanceof Int32Array ? raw : undefined
  if (encoding === 'hash32') return hashed(raw, element)
  if (raw instanceof Float32Array) return raw
  if (raw instanceof Float64Array || raw instanceof Int32Array) return new Float32Array(raw)
  if (raw instanceof BigInt64Array) {
    const out = new Float32Array(raw.length)
    for (let i = 0; i < raw.length; i++) out[i] = Number(raw[i])
    return out
  }
  return undefined
}

function hashed(raw: DecodedArray, element: SchemaElement): Uint32Array | undefined {
  const out = new Uint32Array(raw.length)
  if (raw instanceof BigInt64Array) {
    const words = new Int32Array(raw.buffer, raw.byteOffset, raw.length * 2)
    for (let i = 0; i < out.length; i++) out[i] = hashInt64Words(words[2 * i], words[2 * i + 1])
  } else if (raw instanceof Int32Array) {
    for (let i = 0; i < out.length; i++) out[i] = hashInteger(raw[i])
  } else if (Array.isArray(raw)) {
    // decode.ts hashes a UTF8 column's decoded string (invalid bytes become U+FFFD first).
    const text = element.converted_type === 'UTF8' || element.logical_type?.type === 'STRING'
    for (let i = 0; i < out.length; i++) {
      const bytes = raw[i] as Uint8Array
      out[i] = text ? hashString(utf8.decode(bytes)) : hashBytes(bytes)
    }
  } else return undefined
  return out
}

/** values[indices[i]] for every i (dictionary-encoded page), or undefined for an index out of range. */
export function lookup(dictionary: FastValues, indices: Int32Array): FastValues | undefined {
  const out = new (dictionary.constructor as new (n: number) => FastValues)(indices.length)
  const size = dictionary.length
  for (let i = 0; i < indices.length; i++) {
    const j = indices[i]
    if (j >= size) return undefined
    out[i] = dictionary[j]
  }
  return out
}

/**
 * Spreads `values` (the non-null values of a page) over its rows by definition level: rows whose
 * level is below `maxDef` are null and become NaN (float32 only; the caller never asks otherwise).
 */
export function spreadNulls(values: Float32Array, defs: Uint8Array, maxDef: number): Float32Array {
  const out = new Float32Array(defs.length)
  let j = 0
  for (let i = 0; i < defs.length; i++) out[i] = defs[i] === maxDef ? values[j++] : NaN
  return out
}

/** Concatenation of same-typed arrays into one of `total` elements. */
export function concat(parts: FastValues[], encoding: FastEncoding, total: number): FastValues {
  if (parts.length === 1 && parts[0].length === total) return parts[0]
  const out = allocate(encoding, total)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}
