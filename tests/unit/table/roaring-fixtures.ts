/** Test-only writer of Delta DV bitmaps (magic + 64-bit portable Roaring), to build cases. */
import { DV_MAGIC } from '../../../src/table/roaring.ts'

/** 'plain': array or bitmap containers chosen by cardinality (as the format requires); 'run': run containers. */
export type ContainerKind = 'plain' | 'run'

class Bytes {
  out: number[] = []
  u16(v: number) {
    this.out.push(v & 0xff, (v >>> 8) & 0xff)
  }
  u32(v: number) {
    this.u16(v & 0xffff)
    this.u16(v >>> 16)
  }
}

/** Runs [start, lengthMinus1] of sorted values. */
function runsOf(values: number[]): [number, number][] {
  const runs: [number, number][] = []
  for (const v of values) {
    const last = runs.at(-1)
    if (last && last[0] + last[1] + 1 === v) last[1]++
    else runs.push([v, 0])
  }
  return runs
}

/** Serializes a 32-bit portable bitmap; `kind` picks the container type for every container. */
export function bitmap32(values: number[], kind: ContainerKind): number[] {
  const groups = new Map<number, number[]>()
  for (const v of [...values].sort((a, b) => a - b)) {
    const key = Math.floor(v / 65536)
    groups.set(key, [...(groups.get(key) ?? []), v % 65536])
  }
  const w = new Bytes()
  const keys = [...groups.keys()]
  if (kind === 'run') {
    w.u32(12347 | ((keys.length - 1) << 16))
    for (let i = 0; i < Math.ceil(keys.length / 8); i++) w.out.push(0xff)
  } else {
    w.u32(12346)
    w.u32(keys.length)
  }
  for (const key of keys) {
    w.u16(key)
    w.u16(groups.get(key)!.length - 1)
  }
  // Offsets are not checked by the reader; zeros suffice.
  if (kind !== 'run' || keys.length >= 4) for (const _ of keys) w.u32(0)
  for (const key of keys) {
    const lows = groups.get(key)!
    const dense = kind === 'plain' && lows.length > 4096
    if (kind === 'plain' && !dense) for (const v of lows) w.u16(v)
    if (kind === 'run') {
      const runs = runsOf(lows)
      w.u16(runs.length)
      for (const [start, len] of runs) {
        w.u16(start)
        w.u16(len)
      }
    }
    if (dense) {
      const words = new Uint32Array(2048)
      for (const v of lows) words[v >>> 5] |= 1 << (v & 31)
      for (const word of words) w.u32(word)
    }
  }
  return w.out
}

/** Full Delta DV bitmap for 64-bit row indexes (< 2^53). */
export function deltaBitmap(values: number[], kind: ContainerKind): Uint8Array {
  const buckets = new Map<number, number[]>()
  for (const v of values) {
    const high = Math.floor(v / 2 ** 32)
    buckets.set(high, [...(buckets.get(high) ?? []), v % 2 ** 32])
  }
  const w = new Bytes()
  w.u32(DV_MAGIC)
  w.u32(buckets.size)
  w.u32(0)
  for (const high of [...buckets.keys()].sort((a, b) => a - b)) {
    w.u32(high)
    w.out.push(...bitmap32(buckets.get(high)!, kind))
  }
  return Uint8Array.from(w.out)
}

/** Delta DV file: version byte, then framed (big-endian size, bitmap, big-endian CRC) DVs. */
export function dvFile(bitmaps: Uint8Array[], crc: (b: Uint8Array) => number): { file: Uint8Array; offsets: number[] } {
  const out: number[] = [1]
  const offsets: number[] = []
  for (const bitmap of bitmaps) {
    offsets.push(out.length)
    const size = new DataView(new ArrayBuffer(4))
    size.setUint32(0, bitmap.length)
    const sum = new DataView(new ArrayBuffer(4))
    sum.setUint32(0, crc(bitmap))
    out.push(...new Uint8Array(size.buffer), ...bitmap, ...new Uint8Array(sum.buffer))
  }
  return { file: Uint8Array.from(out), offsets }
}

/**
 * One container written exactly as given, for bitmaps that break the format: values are not
 * sorted, runs are [start, lengthMinus1] pairs as stored, and `cardinality` (default: what the
 * values or runs hold) goes into the header unchecked.
 */
export type CraftedContainer =
  | { key: number; kind: 'array'; values: number[]; cardinality?: number }
  | { key: number; kind: 'run'; runs: [number, number][]; cardinality?: number }

/** Delta DV bitmap with one bucket (key 0) holding `containers` as given, then `trailing` extra bytes. */
export function craftedBitmap(containers: CraftedContainer[], trailing = 0): Uint8Array {
  const w = new Bytes()
  w.u32(DV_MAGIC)
  w.u32(1)
  w.u32(0)
  w.u32(0)
  const runs = containers.some(c => c.kind === 'run')
  if (runs) {
    w.u32(12347 | ((containers.length - 1) << 16))
    for (let i = 0; i < containers.length; i += 8) {
      let flags = 0
      containers.slice(i, i + 8).forEach((c, j) => {
        if (c.kind === 'run') flags |= 1 << j
      })
      w.out.push(flags)
    }
  } else {
    w.u32(12346)
    w.u32(containers.length)
  }
  for (const c of containers) {
    const held = c.kind === 'array' ? c.values.length : c.runs.reduce((n, [, len]) => n + len + 1, 0)
    w.u16(c.key)
    w.u16((c.cardinality ?? held) - 1)
  }
  if (!runs || containers.length >= 4) for (const _ of containers) w.u32(0)
  for (const c of containers) {
    if (c.kind === 'array') for (const v of c.values) w.u16(v)
    else {
      w.u16(c.runs.length)
      for (const [start, len] of c.runs) {
        w.u16(start)
        w.u16(len)
      }
    }
  }
  for (let i = 0; i < trailing; i++) w.out.push(0)
  return Uint8Array.from(w.out)
}
