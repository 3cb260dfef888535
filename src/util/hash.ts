/**
 * Stable 32-bit hashes and seed mixing, one implementation of each:
 * - MurmurHash3 x86_32 (Appleby's reference; seed 0 is Python's `mmh3.hash(…, signed=False)`) of
 *   bytes, strings (their UTF-8 bytes) and int64 values (their 8 little-endian bytes), so a string
 *   or id hashes the same wherever it is read — the recommender's bucket hashing;
 * - its finaliser `fmix32` (GBDT row and column sampling), and `mixSeed`, MurmurHash3 of a list
 *   of integers, for independent seeds (the data path's epoch orders and shuffle windows);
 * - `bracketSeed`, the Hyperband strategy's per-bracket stream seed;
 * - FNV-1a (`fnv1a`, `fnv1aStep`), for cheap fingerprints (plan digests, pipeline-cache keys,
 *   generated tables' per-file seeds).
 * Integer arithmetic only (`Math.imul`, `>>>`), so every result is identical in every worker,
 * run, browser and Node. Each output here decides data, models or stored fingerprints: changing
 * one changes generated tables, shuffles, buckets or trial configurations.
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

/**
 * MurmurHash3's finaliser (fmix32): a bijective avalanche of a 32-bit value (also writable in WGSL
 * with u32 wrapping multiplies).
 * @returns unsigned 32-bit value
 */
export function fmix32(h: number): number {
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** Final avalanche over the length in bytes; returns an unsigned 32-bit value. */
function finish(h: number, length: number): number {
  return fmix32(h ^ length)
}

/**
 * MurmurHash3 x86_32 of `bytes[start, end)`, seed 0 unless `seed` is given.
 * @returns unsigned 32-bit hash
 */
export function hashBytes(bytes: Uint8Array, start = 0, end = bytes.length, seed = SEED): number {
  let h = seed
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

/** Seed of mixSeed's MurmurHash3 (any fixed value; this one is the data path's since its first release). */
const MIX_SEED = 0x9747b28c
const TWO_32 = 4294967296

/**
 * Hash any number of safe integers (negative allowed, up to 53 bits) into one 32-bit seed:
 * MurmurHash3 (seed 0x9747b28c) over each integer's 8 little-endian two's-complement bytes. Used
 * so (seed, epoch) and (seed, epoch, rank, window) each get an independent generator — adding 1
 * to an Rng seed would give correlated streams for neighbouring epochs.
 * @returns unsigned 32-bit seed
 */
export function mixSeed(...ints: number[]): number {
  let h = MIX_SEED
  for (const v of ints) {
    if (!Number.isSafeInteger(v)) throw new RangeError(`mixSeed: expected safe integers, got ${v}`)
    h = mixBlock(h, v | 0)
    h = mixBlock(h, Math.floor(v / TWO_32) | 0)
  }
  return finish(h, ints.length * 8)
}

/**
 * The seed of stream `k` (k ≥ 0) derived from a sweep seed: one multiply-add of the two, kept
 * apart from mixSeed because it decides which configurations each Hyperband bracket draws, and a
 * sweep seed must keep giving the same trials.
 * @returns unsigned 32-bit seed
 */
export function bracketSeed(seed: number, k: number): number {
  return (Math.imul(seed ^ 0x5bd1e995, 0x9e3779b1) + Math.imul(k + 1, 0x85ebca6b)) >>> 0
}

/** FNV-1a's 32-bit offset basis (the hash of no input). */
export const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/**
 * One FNV-1a step: mixes `unit` (a byte, or a UTF-16 code unit for string hashes) into `h`.
 * @returns unsigned 32-bit hash
 */
export function fnv1aStep(h: number, unit: number): number {
  return Math.imul(h ^ unit, FNV_PRIME) >>> 0
}

/**
 * 32-bit FNV-1a of a string's UTF-16 code units (not its UTF-8 bytes: the fingerprints built on
 * it were defined that way), starting from `h` (the offset basis unless chaining).
 * @returns unsigned 32-bit hash
 */
export function fnv1a(s: string, h = FNV_OFFSET): number {
  for (let i = 0; i < s.length; i++) h = fnv1aStep(h, s.charCodeAt(i))
  return h
}
