/** Shared inputs and checks of the embedding and optimizer parity tests (GPU vs .ref.ts). */
import { expect } from 'vitest'
import { uploadBuffer } from '../../../src/gpu/buffers.ts'
import { readBuffer } from '../../../src/gpu/readback.ts'
import type { Rng } from '../../../src/util/rng.ts'

/** GPU copies of named typed arrays; `read` fetches one back with the same element type and length. */
export interface Uploaded<K extends string> {
  bufs: Record<K, GPUBuffer>
  read(name: K): Promise<Float32Array | Uint32Array>
  destroy(): void
}

/** Uploads each array of `arrays` (f32 or u32) under its name. */
export function upload<K extends string>(
  device: GPUDevice,
  arrays: Record<K, Float32Array<ArrayBuffer> | Uint32Array<ArrayBuffer>>,
): Uploaded<K> {
  const names = Object.keys(arrays) as K[]
  const bufs = Object.fromEntries(names.map(k => [k, uploadBuffer(device, arrays[k])])) as Record<K, GPUBuffer>
  return {
    bufs,
    read: name => {
      const a = arrays[name]
      return readBuffer(device, bufs[name], a instanceof Float32Array ? Float32Array : Uint32Array, a.length)
    },
    destroy: () => names.forEach(k => bufs[k].destroy()),
  }
}

/** `u` distinct row ids in [0, r), shuffled, always including the last row r − 1 when u ≥ 1. */
export function distinctRows(rng: Rng, u: number, r: number): Uint32Array<ArrayBuffer> {
  const all = Uint32Array.from({ length: r }, (_, i) => i)
  for (let i = r - 1; i > 0; i--) {
    const j = rng.int(i + 1)
    ;[all[i], all[j]] = [all[j], all[i]]
  }
  const picked = all.slice(0, u)
  if (u > 0 && !picked.includes(r - 1)) picked[rng.int(u)] = r - 1
  return picked
}

/** Asserts rows not in `uniq` of `got` and `before` ([R × D] tables) are bit-identical. */
export function expectUntouched(
  got: ArrayLike<number>,
  before: ArrayLike<number>,
  uniq: Uint32Array,
  dim: number,
  what: string,
): void {
  const touched = new Set(uniq)
  const bad: number[] = []
  for (let i = 0; i < before.length && bad.length < 5; i++) {
    if (!touched.has(Math.floor(i / dim)) && !Object.is(got[i], before[i])) bad.push(i)
  }
  expect(bad, `${what}: untouched elements changed`).toEqual([])
}
