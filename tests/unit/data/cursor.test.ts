import { describe, expect, it } from 'vitest'
import {
  assignFromCursor,
  checkCursor,
  cursorMismatch,
  cursorToJson,
  CursorError,
  makeCursor,
  parseCursor,
} from '../../../src/data/cursor.ts'
import { rankStream } from '../../../src/data/stream.ts'
import type { AssignOptions, Cursor } from '../../../src/data/types.ts'
import { idsOf, syntheticPlan, type UnitSpec } from './assign-fixtures.ts'

const plan = syntheticPlan(
  Array.from(
    { length: 30 },
    (_, i): UnitSpec => (i % 9 === 4 ? { rows: 0 } : i % 4 === 2 ? { rows: 120, live: 70 + i } : { rows: 50 + 11 * i }),
  ),
  { perFile: 5 },
)

/** Stop after `p` rows, write the cursor as JSON, and resume from the parsed file alone. */
function resumeAt(opts: AssignOptions, p: number): { head: string[]; tail: string[]; whole: string[] } {
  const run = rankStream(plan, opts)
  const whole = idsOf(plan, run.rowsAt(0, run.length))
  const head = idsOf(plan, run.rowsAt(0, p))
  const text = cursorToJson(makeCursor(plan, opts, p))
  const cursor = parseCursor(text, 'cursor.json')
  checkCursor(cursor, plan)
  const { position, ...resumed } = assignFromCursor(cursor)
  const again = rankStream(plan, resumed)
  return { head, tail: idsOf(plan, again.rowsAt(position, again.length)), whole }
}

describe('resume from a cursor', () => {
  const runs: AssignOptions[] = [
    { seed: 42, epoch: 0, worldSize: 1, rank: 0, shuffleBuffer: 128 },
    { seed: 2 ** 35 + 1, epoch: 3, worldSize: 3, rank: 2, shuffleBuffer: 100, mode: 'pad' },
    { seed: 7, epoch: 1, worldSize: 4, rank: 1 },
    { epoch: 0, worldSize: 2, rank: 1 },
  ]

  it.each(runs)('delivers exactly the remainder, in the uninterrupted order (%o)', opts => {
    const length = rankStream(plan, opts).length
    const B = rankStream(plan, opts).shuffleBuffer || 64
    const stops = [0, 1, B - 1, B, B + 1, 2 * B, 377, Math.floor(length / 2), length - 1, length]
    for (const p of stops.filter(p => p >= 0 && p <= length)) {
      const { head, tail, whole } = resumeAt(opts, p)
      expect(tail).toHaveLength(length - p)
      expect(tail).toEqual(whole.slice(p))
      expect([...head, ...tail]).toEqual(whole)
    }
  })

  it('a cursor of another epoch or rank resumes a different stream', () => {
    const opts = { seed: 42, epoch: 0, worldSize: 2, rank: 0 }
    const c = parseCursor(cursorToJson(makeCursor(plan, { ...opts, epoch: 1 }, 10)))
    expect(assignFromCursor(c)).toMatchObject({ epoch: 1, position: 10, seed: 42 })
    const { position, ...o } = assignFromCursor(c)
    expect(idsOf(plan, rankStream(plan, o).rowsAt(position, position + 50))).not.toEqual(
      idsOf(plan, rankStream(plan, opts).rowsAt(10, 60)),
    )
  })

  it('keeps "no seed" through JSON (table order), and reads a null seed the same way', () => {
    const c = makeCursor(plan, { epoch: 2, worldSize: 1, rank: 0, shuffleBuffer: 500 }, 3)
    expect(c.seed).toBeUndefined()
    expect(c.shuffleBuffer).toBe(0) // no seed: the stream shuffles nothing, and says so
    expect(parseCursor(cursorToJson(c))).toEqual(c)
    expect(parseCursor(JSON.stringify({ ...c, seed: null }))).toEqual(c)
    expect('seed' in assignFromCursor(c)).toBe(false)
  })

  it('round-trips every field', () => {
    const c = makeCursor(plan, { seed: -3, epoch: 4, worldSize: 3, rank: 1, mode: 'pad', shuffleBuffer: 77 }, 12)
    expect(c).toEqual({
      tableUrl: plan.tableUrl,
      version: plan.version,
      planDigest: plan.digest,
      seed: -3,
      epoch: 4,
      worldSize: 3,
      rank: 1,
      mode: 'pad',
      shuffleBuffer: 77,
      position: 12,
    })
    expect(parseCursor(cursorToJson(c))).toEqual(c)
  })

  it('keeps seed 0 (a seed, not "no seed")', () => {
    const c = makeCursor(plan, { seed: 0, epoch: 0, worldSize: 1, rank: 0 }, 0)
    expect(c.seed).toBe(0)
    expect(parseCursor(cursorToJson(c)).seed).toBe(0)
    expect(assignFromCursor(c).seed).toBe(0)
  })

  it('refuses positions outside the stream when making a cursor', () => {
    const opts = { seed: 1, epoch: 0, worldSize: 2, rank: 0 }
    const length = rankStream(plan, opts).length
    expect(() => makeCursor(plan, opts, length + 1)).toThrow(`position must be an integer in [0, ${length}]`)
    expect(() => makeCursor(plan, opts, -1)).toThrow(RangeError)
  })
})

describe('cursor that does not fit the plan', () => {
  const good = makeCursor(plan, { seed: 1, epoch: 0, worldSize: 2, rank: 1 }, 5)

  it('accepts its own plan', () => {
    expect(cursorMismatch(good, plan)).toBeUndefined()
  })

  it('names another table, version or plan', () => {
    expect(() => checkCursor({ ...good, tableUrl: 'http://t.test/other' }, plan)).toThrow(
      'cursor was made for table http://t.test/other, this plan reads http://t.test/tbl',
    )
    expect(() => checkCursor({ ...good, version: 1 }, plan)).toThrow(
      'cursor was made for version 1 of http://t.test/tbl, this plan reads version 2',
    )
    const refiltered = { ...plan, digest: 'other-digest' }
    expect(cursorMismatch(good, refiltered)).toMatch(/another scan plan .* columns, filter or files differ/)
    expect(() => checkCursor(good, refiltered)).toThrow(CursorError)
  })

  it('names a position past the end of the stream', () => {
    const length = rankStream(plan, assignFromCursor(good)).length
    expect(cursorMismatch({ ...good, position: length }, plan)).toBeUndefined()
    expect(cursorMismatch({ ...good, position: length + 1 }, plan)).toBe(
      `cursor position ${length + 1} is past the end of rank 1's stream (${length} rows in epoch 0 with worldSize 2, drop_last)`,
    )
  })
})

describe('parseCursor errors', () => {
  const text = cursorToJson(makeCursor(plan, { seed: 1, epoch: 0, worldSize: 2, rank: 1 }, 5))
  const base = JSON.parse(text) as Record<string, unknown>

  it('names invalid JSON and non-objects, with the source', () => {
    expect(() => parseCursor('{"tableUrl":', 'run/cursor.json')).toThrow(/^run\/cursor\.json: not valid JSON/)
    expect(() => parseCursor('[1]')).toThrow('cursor: expected a JSON object')
    expect(() => parseCursor('null')).toThrow(CursorError)
  })

  const bad: [keyof Cursor, unknown][] = [
    ['tableUrl', undefined],
    ['tableUrl', ''],
    ['version', -1],
    ['version', '2'],
    ['planDigest', 5],
    ['seed', 1.5],
    ['seed', 'x'],
    ['epoch', undefined],
    ['epoch', 0.5],
    ['worldSize', 0],
    ['rank', 2],
    ['rank', -1],
    ['mode', 'wrap'],
    ['shuffleBuffer', -2],
    ['position', undefined],
    ['position', 1e20],
  ]
  it.each(bad)('names field %s when it is %o', (name, value) => {
    const json = JSON.stringify({ ...base, [name]: value })
    let err: unknown
    try {
      parseCursor(json, 'c.json')
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(CursorError)
    expect((err as CursorError).field).toBe(name)
    expect((err as Error).message).toMatch(new RegExp(`^c\\.json: field "${name}" must be`))
  })
})
