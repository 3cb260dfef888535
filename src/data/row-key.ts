/**
 * Row identity for the seeded validation split: a row's key is a hash of its values in the key
 * columns, never of where its bytes were read from. A folder, signed object storage and a Delta
 * Sharing server (whose pre-signed URLs carry no Delta path) serve the same rows, so they get the
 * same validation rows, and a job on another engine can recompute the split from the values alone.
 *
 * The definition (the README's "The validation split and row identity" states it for other engines):
 * - value hash v = MurmurHash3_x86_32, seed 0, of the value's canonical bytes:
 *   string → its UTF-8 bytes; binary → its bytes; boolean → int64 0/1; byte/short/int/long and date
 *   (days since 1970-01-01) → int64 little-endian; float/double/decimal/timestamp (seconds since
 *   the epoch, as float64) → int64 little-endian when the value is an integer of at most 53 bits
 *   (so 3.0 ≡ 3 and −0 ≡ 0), NaN → the float64 bits 0x7FF8000000000000, any other value → its
 *   float64 bits, little-endian; null → v = 0xFFFFFFFF (no bytes hashed);
 * - row key k = MurmurHash3_x86_32, seed 0, of the key columns' v, each as 4 little-endian bytes,
 *   in key-column order;
 * - the row is held out when MurmurHash3_x86_32, seed 0x9747b28c, of (seed, k) as two int64
 *   little-endian (util/hash.ts mixSeed), divided by 2^32, is below the fraction.
 * The value hash is the loader's hash32 of a value (decode-values.ts toHash), with null and NaN
 * given fixed values instead of refused.
 */
import type { StructField, StructType } from '../table/types.ts'
import { hashBytes, mixSeed } from '../util/hash.ts'

/** The value hash of a null key value (all ones; hashes of real values are spread over 32 bits). */
export const NULL_KEY_HASH = 0xffffffff

/** Delta types a key column may have: scalars with one canonical serialisation. */
const KEY_TYPES =
  /^(string|binary|boolean|byte|short|integer|long|float|double|date|timestamp|timestamp_ntz|decimal\(.*\))$/

/**
 * The row key of each of `n` rows from its key columns' value hashes (each `n` long, key-column
 * order). With no columns every row gets the hash of no bytes (0): one key, one side of the split.
 */
export function combineKeys(columns: readonly Uint32Array[], n: number): Uint32Array {
  const out = new Uint32Array(n)
  const bytes = new Uint8Array(4 * columns.length)
  const words = new DataView(bytes.buffer)
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < columns.length; c++) words.setUint32(4 * c, columns[c][i], true)
    out[i] = hashBytes(bytes)
  }
  return out
}

/** True when the row with key `key` goes to the validation set of the split (seed, fraction). */
export function isValidKey(seed: number, key: number, fraction: number): boolean {
  return mixSeed(seed, key) / 2 ** 32 < fraction
}

/** 1 for each key held out by the split (seed, fraction), else 0. */
export function validMaskOfKeys(keys: Uint32Array, seed: number, fraction: number): Uint8Array {
  const mask = new Uint8Array(keys.length)
  for (let i = 0; i < keys.length; i++) mask[i] = isValidKey(seed, keys[i], fraction) ? 1 : 0
  return mask
}

/**
 * The key columns of a run, as schema fields: `named` (--split-key) in the order given, else the
 * scalar columns among `used` (label and features; list columns left out) sorted by name (UTF-16
 * code units), so neither the table's column order nor `--features b,a` against `a,b` changes the
 * split. Throws RangeError naming the column for an unknown name or a type with no
 * canonical serialisation (struct, map, array).
 */
export function rowKeyFields(schema: StructType, used: readonly string[], named?: readonly string[]): StructField[] {
  if (named && named.length > 0) {
    if (new Set(named).size !== named.length)
      throw new RangeError(`--split-key: a column is named twice (${named.join(', ')})`)
    return named.map(name => {
      const field = schema.fields.find(f => f.name === name)
      if (!field) {
        throw new RangeError(
          `--split-key: no column ${name} in the table (columns: ${schema.fields.map(f => f.name).join(', ')})`,
        )
      }
      return checkKeyField(field, '--split-key')
    })
  }
  // List columns (the recommender's bags) have no canonical serialisation here: the default leaves them out.
  // Sorted by name: the split does not depend on the order of the table's columns or of --features.
  const wanted = new Set(used)
  return schema.fields
    .filter(f => wanted.has(f.name) && isKeyType(f))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

function isKeyType(field: StructField): boolean {
  return typeof field.type === 'string' && KEY_TYPES.test(field.type)
}

function checkKeyField(field: StructField, what: string): StructField {
  if (!isKeyType(field)) {
    throw new RangeError(
      `${what}: column ${field.name} has type ${JSON.stringify(field.type)}; a key column must be a string, binary, boolean, number, date or timestamp column`,
    )
  }
  return field
}
