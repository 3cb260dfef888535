/**
 * Z85 (ZeroMQ Base-85) decoding, as Delta uses it for deletion vector ids and inline bitmaps
 * (PROTOCOL.md "Deletion Vector Descriptor Schema"): every 5 characters carry 4 bytes, big-endian.
 */

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#'

const DECODE = buildDecodeTable()

function buildDecodeTable(): Int16Array {
  const table = new Int16Array(128).fill(-1)
  for (let i = 0; i < ALPHABET.length; i++) table[ALPHABET.charCodeAt(i)] = i
  return table
}

/**
 * Decodes a Z85 string to bytes.
 * `text`: length a multiple of 5. `byteLength`: optional output length ≤ text.length / 5 * 4;
 * Delta pads inline bitmaps to a multiple of 4 bytes before encoding, and the descriptor's
 * `sizeInBytes` says how many of the decoded bytes are real.
 * Throws RangeError naming the bad character or length.
 */
export function z85Decode(text: string, byteLength?: number): Uint8Array {
  if (text.length % 5 !== 0) throw new RangeError(`z85: length ${text.length} is not a multiple of 5`)
  const out = new Uint8Array((text.length / 5) * 4)
  for (let block = 0; block < text.length / 5; block++) {
    let value = 0
    for (let i = 0; i < 5; i++) {
      const code = text.charCodeAt(block * 5 + i)
      const digit = code < 128 ? DECODE[code] : -1
      if (digit < 0) throw new RangeError(`z85: invalid character '${text[block * 5 + i]}' at ${block * 5 + i}`)
      value = value * 85 + digit
    }
    if (value > 0xffffffff) throw new RangeError(`z85: block ${block} overflows 32 bits`)
    out[block * 4] = value >>> 24
    out[block * 4 + 1] = (value >>> 16) & 0xff
    out[block * 4 + 2] = (value >>> 8) & 0xff
    out[block * 4 + 3] = value & 0xff
  }
  if (byteLength === undefined) return out
  if (byteLength > out.length) throw new RangeError(`z85: ${byteLength} bytes asked, only ${out.length} encoded`)
  return out.subarray(0, byteLength)
}

/**
 * Encodes bytes as Z85 (length must be a multiple of 4). Used by tests to build inline DVs and
 * DV ids; the reader itself only decodes.
 */
export function z85Encode(bytes: Uint8Array): string {
  if (bytes.length % 4 !== 0) throw new RangeError(`z85: byte length ${bytes.length} is not a multiple of 4`)
  let text = ''
  for (let i = 0; i < bytes.length; i += 4) {
    let value = ((bytes[i] << 24) | (bytes[i + 1] << 16) | (bytes[i + 2] << 8) | bytes[i + 3]) >>> 0
    const chars: string[] = []
    for (let j = 0; j < 5; j++) {
      chars.unshift(ALPHABET[value % 85])
      value = Math.floor(value / 85)
    }
    text += chars.join('')
  }
  return text
}

/**
 * Decodes a 20-character Z85 UUID (16 bytes, most significant first) to its canonical
 * 8-4-4-4-12 lowercase hex form, as Delta names DV files `deletion_vector_<uuid>.bin`.
 */
export function z85DecodeUuid(text: string): string {
  if (text.length !== 20) throw new RangeError(`z85: a UUID is 20 characters, got ${text.length}`)
  const hex = Array.from(z85Decode(text), b => b.toString(16).padStart(2, '0')).join('')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}
