/**
 * The Parquet decompressors, bounded: hyparquet-compressors' codecs wrapped so that none allocates
 * more than the page's declared uncompressed size, nor that size when it is over the page cap
 * (page-bounds.ts), and none writes past it. Every read path (row reader, the loader's page
 * decoder and its general path, checkpoints, workers) passes `compressors` from here.
 *
 * Why wrapping is needed: SNAPPY, GZIP, BROTLI and LZ4 allocate the size they are told before
 * looking at the data, and fzstd, given no output buffer, allocates what the frame header claims
 * (a 33 KB page can claim 1 GiB) and grows further for frames that claim nothing.
 */
import type { CompressionCodec, Compressors } from 'hyparquet'
import { compressors as unbounded, decompressZstd } from 'hyparquet-compressors'
import { pageLimits } from './page-bounds.ts'

type Decompress = (input: Uint8Array, outputLength: number) => Uint8Array

/** The bounded codecs at the default page cap (`SNAPTRAIN_MAX_PAGE_BYTES` in Node). */
export const compressors: Compressors = boundedCompressors(pageLimits().maxPageBytes)

/** The codecs with outputs capped at `maxPageBytes` and at each call's declared length. */
export function boundedCompressors(maxPageBytes: number): Compressors {
  const capped =
    (codec: CompressionCodec, run: Decompress): Decompress =>
    (input, outputLength) => {
      if (!(outputLength >= 0 && outputLength <= maxPageBytes)) {
        throw new Error(
          `${codec} page declares ${outputLength} uncompressed bytes, over the page cap of ${maxPageBytes}`,
        )
      }
      return run(input, outputLength)
    }
  return {
    SNAPPY: capped('SNAPPY', snappy),
    // These write into a buffer of exactly the declared length and never grow it.
    GZIP: capped('GZIP', gzip),
    BROTLI: capped('BROTLI', unbounded.BROTLI!),
    LZ4: capped('LZ4', unbounded.LZ4!),
    LZ4_RAW: capped('LZ4_RAW', unbounded.LZ4_RAW!),
    ZSTD: capped('ZSTD', zstd),
  }
}

/**
 * gunzip drops what would go past its buffer but keeps inflating (at most 1032 bytes per input
 * byte) and reports nothing, so the gzip trailer's length (ISIZE, mod 2^32) must match first.
 */
function gzip(input: Uint8Array, outputLength: number): Uint8Array {
  const isGzip = input.length >= 18 && input[0] === 0x1f && input[1] === 0x8b
  const stated = isGzip
    ? new DataView(input.buffer, input.byteOffset + input.length - 4, 4).getUint32(0, true)
    : undefined
  if (stated !== undefined && stated !== outputLength % 2 ** 32) {
    throw new Error(`gzip trailer states ${stated} bytes, the page declares ${outputLength}`)
  }
  return unbounded.GZIP!(input, outputLength)
}

/** Snappy states its length up front; the WASM decoder reserves memory for the declared one, so both must agree. */
function snappy(input: Uint8Array, outputLength: number): Uint8Array {
  const stated = snappyLength(input)
  if (stated !== outputLength) throw new Error(`snappy data states ${stated} bytes, the page declares ${outputLength}`)
  return unbounded.SNAPPY!(input, outputLength)
}

/** The varint length preamble of a snappy block. */
function snappyLength(input: Uint8Array): number {
  let value = 0
  for (let i = 0, shift = 0; i < 5 && i < input.length; i++, shift += 7) {
    value += (input[i] & 0x7f) * 2 ** shift
    if (!(input[i] & 0x80)) return value
  }
  throw new Error('snappy length preamble is not a varint of at most 5 bytes')
}

/**
 * Zstandard into a buffer of the declared length: fzstd then allocates no window and cannot write
 * past the buffer. Frames are checked first: what they state (content sizes, raw and RLE blocks)
 * must fit the declared length, and a frame that states no size must be the last one.
 */
function zstd(input: Uint8Array, outputLength: number): Uint8Array {
  const out = new Uint8Array(outputLength)
  let at = 0
  const frames = zstdFrames(input)
  frames.forEach((frame, i) => {
    const size = frame.contentSize ?? (i === frames.length - 1 ? outputLength - at : undefined)
    if (size === undefined) throw new Error('zstd frame without a content size is followed by another frame')
    if (frame.minimumSize > size || at + size > outputLength) {
      const stated = at + Math.max(size, frame.minimumSize)
      throw new Error(`zstd frames state at least ${stated} bytes, the page declares ${outputLength}`)
    }
    decompressZstd(input.subarray(frame.start, frame.end), out.subarray(at, at + size))
    at += size
  })
  if (!frames.length && outputLength) throw new Error(`zstd data holds no frame for ${outputLength} declared bytes`)
  return out
}

/** One zstd frame: its bytes, its declared content size, and the bytes its raw and RLE blocks produce. */
interface ZstdFrame {
  start: number
  end: number
  contentSize?: number
  minimumSize: number
}

const ZSTD_MAGIC = 0xfd2fb528

/** Walks the frame and block headers (RFC 8878 §3.1) without decoding; skippable frames are left out. */
function zstdFrames(input: Uint8Array): ZstdFrame[] {
  const view = new DataView(input.buffer, input.byteOffset, input.byteLength)
  const need = (at: number, n: number): void => {
    if (at + n > input.length) throw new Error('zstd data ends inside a frame')
  }
  const frames: ZstdFrame[] = []
  let at = 0
  while (at < input.length) {
    need(at, 8)
    const magic = view.getUint32(at, true)
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      at += 8 + view.getUint32(at + 4, true)
      continue
    } // skippable
    if (magic !== ZSTD_MAGIC) throw new Error('zstd frame magic missing')
    const start = at
    const fhd = input[at + 4]
    const single = (fhd >> 5) & 1
    const fcsBytes = [single, 2, 4, 8][fhd >> 6]
    at += 5 + (single ? 0 : 1) + [0, 1, 2, 4][fhd & 3]
    need(at, fcsBytes)
    let contentSize: number | undefined
    if (fcsBytes === 2) contentSize = view.getUint16(at, true) + 256
    else if (fcsBytes) contentSize = fcsBytes === 8 ? Number(view.getBigUint64(at, true)) : readLE(input, at, fcsBytes)
    at += fcsBytes
    let minimumSize = 0
    for (let last = 0; !last; ) {
      need(at, 3)
      const header = input[at] | (input[at + 1] << 8) | (input[at + 2] << 16)
      last = header & 1
      const type = (header >> 1) & 3
      const size = header >>> 3
      if (type === 3) throw new Error('zstd reserved block type')
      if (type !== 2) minimumSize += size
      at += 3 + (type === 1 ? 1 : size)
    }
    if (fhd & 4) at += 4 // content checksum
    need(at, 0)
    frames.push({ start, end: at, contentSize, minimumSize })
  }
  return frames
}

function readLE(bytes: Uint8Array, at: number, n: number): number {
  let v = 0
  for (let i = n - 1; i >= 0; i--) v = v * 256 + bytes[at + i]
  return v
}
