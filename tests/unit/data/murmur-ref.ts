/**
 * Reference MurmurHash3 x86_32 for tests: a literal transcription of Appleby's C code in BigInt
 * arithmetic (mod 2^32), deliberately unlike src/util/hash.ts (Math.imul, 32-bit ints), so the two
 * agreeing means something.
 */
const M32 = (1n << 32n) - 1n
const mul = (a: bigint, b: bigint): bigint => (a * b) & M32
const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (32n - r))) & M32

/** murmur3_x86_32(bytes, seed) as an unsigned number. */
export function murmur3Ref(bytes: Uint8Array, seed = 0): number {
  let h = BigInt(seed) & M32
  const c1 = 0xcc9e2d51n
  const c2 = 0x1b873593n
  const nblocks = Math.floor(bytes.length / 4)
  for (let i = 0; i < nblocks; i++) {
    let k = 0n
    for (let b = 3; b >= 0; b--) k = (k << 8n) | BigInt(bytes[i * 4 + b])
    k = mul(rotl(mul(k, c1), 15n), c2)
    h = rotl(h ^ k, 13n)
    h = (mul(h, 5n) + 0xe6546b64n) & M32
  }
  const tail = bytes.length & 3
  let k1 = 0n
  for (let b = tail - 1; b >= 0; b--) k1 = (k1 << 8n) | BigInt(bytes[nblocks * 4 + b])
  if (tail) h ^= mul(rotl(mul(k1, c1), 15n), c2)
  h ^= BigInt(bytes.length)
  h ^= h >> 16n
  h = mul(h, 0x85ebca6bn)
  h ^= h >> 13n
  h = mul(h, 0xc2b2ae35n)
  h ^= h >> 16n
  return Number(h)
}

/** Reference hash of a string (UTF-8) and of an int64 (8 little-endian bytes). */
export const refString = (s: string): number => murmur3Ref(new TextEncoder().encode(s))
export function refInt64(v: bigint): number {
  const bytes = new Uint8Array(8)
  new DataView(bytes.buffer).setBigInt64(0, BigInt.asIntN(64, v), true)
  return murmur3Ref(bytes)
}
