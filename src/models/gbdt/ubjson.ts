/**
 * UBJSON (Universal Binary JSON) as XGBoost writes and reads it (`.ubj`, its default model format
 * since 2.1): objects `{ key value … }` with int-length keys, strings `S<int><bytes>`, counted
 * arrays `[#<int>` of tagged values, and typed arrays `[$<type>#<int>` of raw big-endian numbers
 * (XGBoost's F32Array 'd', I32Array 'l', I64Array 'L', U8Array 'U'). The encoder writes every
 * length as 'L' (int64) and integers in the smallest signed type, as XGBoost's UBJWriter does, so
 * the same value always gives the same bytes. N = bytes.
 */

/** Element type of a typed array (the UBJSON marker it is written with). */
export type UbjArrayType = 'f32' | 'i32' | 'i64' | 'u8'

const MARKER: Record<UbjArrayType, string> = { f32: 'd', i32: 'l', i64: 'L', u8: 'U' }

/** Which arrays are typed: `typedArray(key)` for the array stored under `key` (undefined = tagged values). */
export type TypedArrays = (key: string) => UbjArrayType | undefined

/** A growable big-endian byte buffer. */
class Out {
  buf = new Uint8Array(1 << 16)
  view = new DataView(this.buf.buffer)
  at = 0

  reserve(n: number): void {
    if (this.at + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.at + n) size *= 2
    const next = new Uint8Array(size)
    next.set(this.buf.subarray(0, this.at))
    this.buf = next
    this.view = new DataView(next.buffer)
  }

  char(c: string): void {
    this.reserve(1)
    this.buf[this.at++] = c.charCodeAt(0)
  }

  length(n: number): void {
    this.char('L')
    this.reserve(8)
    this.view.setBigInt64(this.at, BigInt(n))
    this.at += 8
  }

  bytes(b: Uint8Array): void {
    this.reserve(b.length)
    this.buf.set(b, this.at)
    this.at += b.length
  }
}

const utf8 = new TextEncoder()

function writeString(o: Out, s: string): void {
  const b = utf8.encode(s)
  o.length(b.length)
  o.bytes(b)
}

/** An integer in the smallest signed type that holds it; other numbers as float32 ('d'), as XGBoost's Number. */
function writeNumber(o: Out, x: number): void {
  if (Number.isInteger(x) && Math.abs(x) <= Number.MAX_SAFE_INTEGER) {
    if (x >= -128 && x <= 127) {
      o.char('i')
      o.reserve(1)
      o.view.setInt8(o.at++, x)
    } else if (x >= -32768 && x <= 32767) {
      o.char('I')
      o.reserve(2)
      o.view.setInt16(o.at, x)
      o.at += 2
    } else if (x >= -2147483648 && x <= 2147483647) {
      o.char('l')
      o.reserve(4)
      o.view.setInt32(o.at, x)
      o.at += 4
    } else {
      o.length(x)
    }
    return
  }
  o.char('d')
  o.reserve(4)
  o.view.setFloat32(o.at, x)
  o.at += 4
}

function writeTyped(o: Out, a: readonly unknown[], t: UbjArrayType, key: string): void {
  o.char('[')
  o.char('$')
  o.char(MARKER[t])
  o.char('#')
  o.length(a.length)
  const size = t === 'f32' || t === 'i32' ? 4 : t === 'i64' ? 8 : 1
  o.reserve(a.length * size)
  for (const v of a) {
    const x = typeof v === 'boolean' ? Number(v) : v
    if (typeof x !== 'number') throw new TypeError(`UBJSON: ${key} holds a ${typeof x}, not a number`)
    if (t === 'f32') o.view.setFloat32(o.at, x)
    else if (t === 'i32') o.view.setInt32(o.at, x)
    else if (t === 'i64') o.view.setBigInt64(o.at, BigInt(x))
    else o.view.setUint8(o.at, x)
    o.at += size
  }
}

function writeValue(o: Out, v: unknown, key: string, typed: TypedArrays): void {
  if (v === null || v === undefined) o.char('Z')
  else if (typeof v === 'boolean') o.char(v ? 'T' : 'F')
  else if (typeof v === 'number') writeNumber(o, v)
  else if (typeof v === 'string') {
    o.char('S')
    writeString(o, v)
  } else if (Array.isArray(v)) {
    const t = typed(key)
    if (t) return writeTyped(o, v, t, key)
    o.char('[')
    o.char('#')
    o.length(v.length)
    for (const x of v) writeValue(o, x, key, typed)
  } else if (typeof v === 'object') {
    o.char('{')
    for (const [k, x] of Object.entries(v)) {
      writeString(o, k)
      writeValue(o, x, k, typed)
    }
    o.char('}')
  } else throw new TypeError(`UBJSON: cannot encode a ${typeof v} (${key})`)
}

/**
 * Encodes `value` (plain JSON data: objects, arrays, strings, numbers, booleans, null). Arrays
 * under a key `typed` names become typed arrays of that element type, every other array holds
 * tagged values.
 */
export function encodeUbjson(value: unknown, typed: TypedArrays = () => undefined): Uint8Array<ArrayBuffer> {
  const o = new Out()
  writeValue(o, value, '', typed)
  return o.buf.slice(0, o.at)
}

/** Reader over the bytes; every error names the byte offset. */
class In {
  at = 0
  readonly view: DataView
  constructor(readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength)
  }

  fail(what: string): never {
    throw new RangeError(`UBJSON: ${what} at byte ${this.at}`)
  }

  need(n: number): void {
    if (this.at + n > this.buf.length) this.fail(`truncated (${n} more bytes needed)`)
  }

  marker(): string {
    this.need(1)
    return String.fromCharCode(this.buf[this.at++])
  }

  /** The value of a number of type `m` (the marker already read). */
  number(m: string): number {
    const sizes: Record<string, number> = { i: 1, U: 1, I: 2, l: 4, L: 8, d: 4, D: 8 }
    const n = sizes[m]
    if (n === undefined) this.fail(`marker '${m}' is not a number type`)
    this.need(n)
    const v = this.view,
      a = this.at
    this.at += n
    switch (m) {
      case 'i':
        return v.getInt8(a)
      case 'U':
        return v.getUint8(a)
      case 'I':
        return v.getInt16(a)
      case 'l':
        return v.getInt32(a)
      case 'L': {
        const x = v.getBigInt64(a)
        if (x > BigInt(Number.MAX_SAFE_INTEGER) || x < BigInt(-Number.MAX_SAFE_INTEGER))
          this.fail(`int64 ${x} is beyond 2^53`)
        return Number(x)
      }
      case 'd':
        return v.getFloat32(a)
      default:
        return v.getFloat64(a)
    }
  }

  /** A length: an integer-typed count ≥ 0 that fits in the remaining bytes' worth of items. */
  count(): number {
    const n = this.number(this.marker())
    if (!Number.isInteger(n) || n < 0) this.fail(`length ${n} is not a whole number ≥ 0`)
    return n
  }

  string(): string {
    const n = this.count()
    this.need(n)
    const s = new TextDecoder('utf-8', { fatal: true }).decode(this.buf.subarray(this.at, this.at + n))
    this.at += n
    return s
  }
}

/** Container header after '[' or '{': optional `$type`, optional `#count`. */
function header(r: In): { type?: string; count?: number } {
  let type: string | undefined
  if (r.buf[r.at] === 0x24 /* $ */) {
    r.at++
    type = r.marker()
    if (r.buf[r.at] !== 0x23 /* # */) r.fail('a typed container needs a count')
  }
  if (r.buf[r.at] !== 0x23) return { type }
  r.at++
  const count = r.count()
  // Each item takes at least one byte (a tagged value) or its type's size: a count beyond the
  // bytes left is a corrupt or hostile file, refused before any allocation.
  if (count > r.buf.length - r.at && !(type === 'Z' || type === 'T' || type === 'F' || type === 'N'))
    r.fail(`count ${count} exceeds the ${r.buf.length - r.at} bytes left`)
  return { type, count }
}

function readValue(r: In, m: string, depth: number): unknown {
  if (depth > 256) r.fail('nesting deeper than 256')
  switch (m) {
    case 'Z':
      return null
    case 'T':
      return true
    case 'F':
      return false
    case 'S':
    case 'H':
      return r.string()
    case 'C':
      return String.fromCharCode(r.number('U'))
    case '[':
      return readArray(r, depth)
    case '{':
      return readObject(r, depth)
    default:
      return r.number(m)
  }
}

function nextMarker(r: In): string {
  let m = r.marker()
  while (m === 'N') m = r.marker()
  return m
}

function readArray(r: In, depth: number): unknown[] {
  const { type, count } = header(r)
  const out: unknown[] = []
  if (count === undefined) {
    for (let m = nextMarker(r); m !== ']'; m = nextMarker(r)) out.push(readValue(r, m, depth + 1))
    return out
  }
  for (let i = 0; i < count; i++) out.push(readValue(r, type ?? nextMarker(r), depth + 1))
  return out
}

function readObject(r: In, depth: number): Record<string, unknown> {
  const { type, count } = header(r)
  const out: Record<string, unknown> = {}
  const entry = () => {
    const k = r.string()
    // An own property also for the key "__proto__" (JSON.parse's behaviour).
    Object.defineProperty(out, k, {
      value: readValue(r, type ?? nextMarker(r), depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  if (count !== undefined) for (let i = 0; i < count; i++) entry()
  else
    while (r.buf[r.at] !== 0x7d /* } */) {
      r.need(1)
      if (r.buf[r.at] === 0x4e /* N */) r.at++
      else entry()
    }
  if (count === undefined) r.at++
  return out
}

/** Decodes one UBJSON value (typed arrays become plain number arrays). Throws RangeError naming the byte offset. */
export function decodeUbjson(bytes: Uint8Array): unknown {
  const r = new In(bytes)
  const v = readValue(r, nextMarker(r), 0)
  if (r.at !== bytes.length) r.fail(`${bytes.length - r.at} bytes after the value`)
  return v
}
