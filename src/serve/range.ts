/**
 * HTTP Range header parsing (RFC 9110 §14.1.2), single range only: hyparquet and the Delta
 * reader ask for one byte range at a time, and a multi-range answer (multipart/byteranges) is
 * something no client here would parse, so several ranges are served as the whole file (allowed).
 */

/**
 * Parses `bytes=a-b`, `bytes=a-` or `bytes=-n` against a file of `size` bytes.
 * Returns the inclusive byte interval [start, end], null when the header is absent, malformed or
 * lists several ranges (serve 200 with the whole file), or 'unsatisfiable' (answer 416).
 */
export function parseRange(header: string | undefined, size: number): [number, number] | null | 'unsatisfiable' {
  if (!header) return null
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim())
  if (!m || (m[1] === '' && m[2] === '')) return null
  if (m[1] === '') return suffixRange(Number(m[2]), size)
  const start = Number(m[1])
  if (m[2] !== '' && Number(m[2]) < start) return null // invalid range-spec: RFC says ignore the header
  if (start >= size) return 'unsatisfiable'
  return [start, m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1)]
}

/** The last `n` bytes; `bytes=-0` or any suffix of an empty file selects nothing. */
function suffixRange(n: number, size: number): [number, number] | 'unsatisfiable' {
  if (n === 0 || size === 0) return 'unsatisfiable'
  return [Math.max(0, size - n), size - 1]
}
