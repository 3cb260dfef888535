/** Typed-array helpers shared by the decoders and the epoch cache. */

/**
 * Whether `view` spans its whole buffer: nothing else can be looking at that memory through it, so
 * it can be kept or transferred as it is (a view on larger bytes is copied first).
 */
export function ownsBuffer(view: ArrayBufferView): boolean {
  return view.byteOffset === 0 && view.byteLength === view.buffer.byteLength
}
