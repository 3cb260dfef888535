/**
 * Stable 32-bit hashes: MurmurHash3 x86_32 with seed 0 (Appleby's reference, the same function as
 * Python's `mmh3.hash(…, signed=False)`). Integer arithmetic only (`Math.imul`, `>>>`), so the
 * result is identical in every worker, run, browser and Node. Strings hash their UTF-8 bytes and
 * int64 values their 8 little-endian bytes, so a string or id hashes the same wherever it is read.
 */

const C1 = 0xcc9e2d51
const C2 = 0x1b873593
const SEED = 0

const encoder = new TextEncoder()
/** Scratch for UTF-8 encoding; grown on demand (strings are usually short ids or categories). */
let scratch = new Uint8Array(256)

/** Mixes one 4-byte block `k` into the running hash `h`. */
function mixBlock(h: number, k: number): number {
  k = Math.imul(k, C1)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, C2)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

/** Mixes the 1–3 tail bytes (already packed little-endian into `k`). */
function mixTail(h: number, k: number): number {
  k = Math.imul(k, C1)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, C2)
  return h ^ k
}

/** Final avalanche over the length in bytes; returns an unsigned 32-bit value. */
function finish(h: number, length: number): number {
  h ^= length
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * MurmurHash3 x86_32 (seed 0) of `bytes[start, end)`.
 * @returns unsigned 32-bit hash
 */
export function hashBytes(bytes: Uint8Array, start = 0, end = bytes.length): number {
  let h = SEED
  const blocks = start + ((end - start) & ~3)
  let i = start
  for (; i < blocks; i += 4) {
    h = mixBlock(h, bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24))
  }
  const rest = end - i
  if (rest > 0) {
    let k = bytes[i]
    if (rest > 1) k |= bytes[i + 1] << 8
    if (rest > 2) k |= bytes[i + 2] << 16
    h = mixTail(h, k)
  }
  return finish(h, end - start)
}

/**
 * Hash of a string's UTF-8 bytes (lone surrogates become U+FFFD, as TextEncoder writes them).
 * @returns unsigned 32-bit hash
 */
export function hashString(s: string): number {
  // A UTF-16 unit is at most 3 UTF-8 bytes, so 3·length always fits.
  if (scratch.length < s.length * 3) scratch = new Uint8Array(s.length * 3)
  const { written } = encoder.encodeInto(s, scratch)
  return hashBytes(scratch, 0, written)
}

/**
 * Hash of a 64-bit integer given as its two 32-bit halves (the 8 little-endian bytes lo then hi);
 * the fast path for BigInt64Array columns read through an Int32Array view.
 * @returns unsigned 32-bit hash
 */
export function hashInt64Words(lo: number, hi: number): number {
  return finish(mixBlock(mixBlock(SEED, lo | 0), hi | 0), 8)
}

/**
 * Hash of a signed or unsigned 64-bit integer over its 8 little-endian two's-complement bytes.
 * Values outside the 64-bit range wrap (as BigInt.asUintN(64, v)).
 * @returns unsigned 32-bit hash
 */
export function hashInt64(v: bigint): number {
  const u = BigInt.asUintN(64, v)
  return hashInt64Words(Number(u & 0xffffffffn), Number(u >> 32n))
}

/**
 * Hash of an integer-valued JS number as int64 (so an int32 column and an int64 column holding
 * the same id hash alike). `v` must be a safe integer.
 * @returns unsigned 32-bit hash
 */
export function hashInteger(v: number): number {
  const lo = v | 0
  // For |v| < 2^31 the high word is the sign extension; beyond that split exactly.
  const hi = v >= -0x80000000 && v <= 0x7fffffff ? (lo < 0 ? -1 : 0) : Math.floor(v / 0x100000000)
  return hashInt64Words(lo, hi)
}
