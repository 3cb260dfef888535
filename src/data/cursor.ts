/**
 * Cursors: where a rank stands in an epoch, as JSON. Because a rank's stream is a pure function of
 * (plan, seed, epoch, worldSize, rank, mode, shuffleBuffer), the cursor only needs those plus the
 * position to resume exactly; the table URL, version and plan digest make sure it is applied to
 * the same rows it was made for.
 */
import type { AssignOptions, Cursor, ScanPlan } from './types.ts'
import { planRows, rankSplit, resolveAssign } from './assign.ts'
import { rankStream } from './stream.ts'

/** A cursor that cannot be parsed, or does not fit the plan; `field` names the culprit. */
export class CursorError extends Error {
  constructor(
    message: string,
    readonly field?: string,
  ) {
    super(message)
    this.name = 'CursorError'
  }
}

/**
 * Cursor after `position` rows of rank `opts.rank`'s epoch stream were delivered
 * (0 ≤ position ≤ stream length). shuffleBuffer is the one the stream actually uses.
 */
export function makeCursor(plan: ScanPlan, opts: AssignOptions, position: number): Cursor {
  const stream = rankStream(plan, opts)
  if (!Number.isSafeInteger(position) || position < 0 || position > stream.length) {
    throw new RangeError(`position must be an integer in [0, ${stream.length}], got ${position}`)
  }
  const o = stream.options
  const cursor: Cursor = {
    tableUrl: plan.tableUrl,
    version: plan.version,
    planDigest: plan.digest,
    epoch: o.epoch,
    worldSize: o.worldSize,
    rank: o.rank,
    mode: o.mode,
    shuffleBuffer: o.shuffleBuffer,
    position,
  }
  if (o.seed !== undefined) cursor.seed = o.seed
  return cursor
}

/** JSON text of a cursor (stable key order, one line per field, trailing newline). */
export function cursorToJson(cursor: Cursor): string {
  const { tableUrl, version, planDigest, seed, epoch, worldSize, rank, mode, shuffleBuffer, position } = cursor
  return (
    JSON.stringify(
      { tableUrl, version, planDigest, seed, epoch, worldSize, rank, mode, shuffleBuffer, position },
      null,
      2,
    ) + '\n'
  )
}

type Fields = Record<string, unknown>

const isInt = (v: unknown, min: number): boolean => typeof v === 'number' && Number.isSafeInteger(v) && v >= min
const isText = (v: unknown): boolean => typeof v === 'string' && v !== ''

/** Each cursor field with its test and what it must be (the error text). */
const FIELD_RULES: [keyof Cursor, (v: unknown, r: Fields) => boolean, (r: Fields) => string][] = [
  ['tableUrl', isText, () => 'a non-empty string'],
  ['version', v => isInt(v, 0), () => 'an integer ≥ 0'],
  ['planDigest', isText, () => 'a non-empty string'],
  ['seed', v => v === undefined || v === null || isInt(v, Number.MIN_SAFE_INTEGER), () => 'an integer or null'],
  ['epoch', v => isInt(v, 0), () => 'an integer ≥ 0'],
  ['worldSize', v => isInt(v, 1), () => 'an integer ≥ 1'],
  ['rank', (v, r) => isInt(v, 0) && (v as number) < (r.worldSize as number), r => `an integer in [0, ${r.worldSize})`],
  ['mode', v => v === 'drop_last' || v === 'pad' || v === 'all', () => '"drop_last", "pad" or "all"'],
  ['shuffleBuffer', v => isInt(v, 0), () => 'an integer ≥ 0'],
  ['position', v => isInt(v, 0), () => 'an integer ≥ 0'],
]

/**
 * Parse and validate cursor JSON; `source` (a file name) prefixes errors. Throws CursorError
 * naming the bad field. A missing or null seed means no shuffling. Unknown fields are ignored.
 */
export function parseCursor(json: string, source = 'cursor'): Cursor {
  let raw: unknown
  try {
    raw = JSON.parse(json)
  } catch (e) {
    throw new CursorError(`${source}: not valid JSON (${(e as Error).message})`)
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new CursorError(`${source}: expected a JSON object`)
  }
  const r = raw as Fields
  const out: Fields = {}
  for (const [name, ok, want] of FIELD_RULES) {
    const v = r[name]
    if (!ok(v, r)) {
      throw new CursorError(
        `${source}: field "${name}" must be ${want(r)}, got ${JSON.stringify(v) ?? 'nothing'}`,
        name,
      )
    }
    if (v !== undefined && v !== null) out[name] = v
  }
  return out as unknown as Cursor
}

/**
 * Why `cursor` cannot resume a run over `plan`, or undefined when it can: another table, another
 * version, another plan (columns, filter or files), or a position past the stream's end.
 */
export function cursorMismatch(cursor: Cursor, plan: ScanPlan): string | undefined {
  if (cursor.tableUrl !== plan.tableUrl) {
    return `cursor was made for table ${cursor.tableUrl}, this plan reads ${plan.tableUrl}`
  }
  if (cursor.version !== plan.version) {
    return `cursor was made for version ${cursor.version} of ${plan.tableUrl}, this plan reads version ${plan.version}`
  }
  if (cursor.planDigest !== plan.digest) {
    return (
      `cursor was made for another scan plan of ${plan.tableUrl} version ${plan.version} ` +
      `(plan digest ${cursor.planDigest}, this plan's is ${plan.digest}): columns, filter or files differ`
    )
  }
  const o = resolveAssign(assignFromCursor(cursor))
  const length = rankSplit(planRows(plan), o.worldSize, o.rank, o.mode).length
  if (cursor.position > length) {
    return (
      `cursor position ${cursor.position} is past the end of rank ${o.rank}'s stream ` +
      `(${length} rows in epoch ${o.epoch} with worldSize ${o.worldSize}, ${o.mode})`
    )
  }
  return undefined
}

/** Throw CursorError with the reason when `cursor` does not fit `plan` (see cursorMismatch). */
export function checkCursor(cursor: Cursor, plan: ScanPlan): void {
  const reason = cursorMismatch(cursor, plan)
  if (reason !== undefined) throw new CursorError(reason)
}

/** The assignment a cursor was made under, and where to resume. */
export function assignFromCursor(cursor: Cursor): AssignOptions & { position: number } {
  const opts: AssignOptions & { position: number } = {
    epoch: cursor.epoch,
    worldSize: cursor.worldSize,
    rank: cursor.rank,
    mode: cursor.mode,
    shuffleBuffer: cursor.shuffleBuffer,
    position: cursor.position,
  }
  if (cursor.seed !== undefined) opts.seed = cursor.seed
  return opts
}
