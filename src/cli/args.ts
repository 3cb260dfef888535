/**
 * Typed flag parsing shared by every `snaptrain` command: a command declares its flags once and
 * gets typed values, `--help` text and usage errors that name the flag. Accepts `--flag value`
 * and `--flag=value`; `--` ends flags. Usage errors are `UsageError`s; commands exit 2 on them.
 */
import type { CliIo } from './io.ts'

/** How a flag's value is read. 'list' takes comma-separated values and may repeat. */
export type FlagKind = 'string' | 'number' | 'int' | 'boolean' | 'list'

/** Declaration of one flag. */
export interface FlagSpec {
  type: FlagKind
  /** One line for `--help`. */
  help: string
  /** Name of the value in `--help` ('dir|url', 'N'); default the kind. */
  placeholder?: string
  /** Usage error when absent. */
  required?: boolean
  /** Allowed values (string flags). */
  choices?: readonly string[]
  /** Smallest allowed value (number/int flags), inclusive. */
  min?: number
  /** Single-letter alias, without the dash ('n' for -n). */
  short?: string
  default?: string | number | boolean | readonly string[]
}

/** A command's usage: name, one-line summary, flags keyed by their long name (without '--'). */
export interface CommandSpec<F extends Record<string, FlagSpec>> {
  name: string
  summary: string
  flags: F
  /** Extra lines for `--help` (examples, environment variables). */
  notes?: string
  /** Accept positional arguments (returned in `positionals`); default false. */
  positionals?: boolean
}

type KindValue<K extends FlagKind> = K extends 'string'
  ? string
  : K extends 'number' | 'int'
    ? number
    : K extends 'boolean'
      ? boolean
      : string[]

/** A flag's value type; a string flag with `choices` is the union of them. */
type ValueOf<S extends FlagSpec> = S extends { choices: readonly (infer C)[] } ? C : KindValue<S['type']>

/** Parsed values: booleans and lists always present; others present when required or defaulted. */
export type FlagValues<F extends Record<string, FlagSpec>> = {
  [K in keyof F]: F[K] extends { type: 'boolean' | 'list' } | { required: true } | { default: unknown }
    ? ValueOf<F[K]>
    : ValueOf<F[K]> | undefined
}

/** Result of parsing: the values, positionals, and whether `--help` was asked for. */
export interface ParsedArgs<F extends Record<string, FlagSpec>> {
  values: FlagValues<F>
  positionals: string[]
  help: boolean
}

/** A usage error: bad, missing or unknown flag. The message names the flag. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

/** Parses `argv` against `spec`; throws `UsageError` on bad input. `--help`/`-h` sets `help`. */
export function parseArgs<const F extends Record<string, FlagSpec>>(
  argv: string[],
  spec: CommandSpec<F>,
): ParsedArgs<F> {
  const end = argv.indexOf('--') < 0 ? argv.length : argv.indexOf('--')
  // --help wins over any other mistake on the line: the user is asking how to fix it.
  if (argv.slice(0, end).some(a => a === '--help' || a === '-h'))
    return { values: {} as FlagValues<F>, positionals: [], help: true }
  const raw = new Map<string, string[]>()
  const positionals: string[] = []
  for (let i = 0; i < end; i++) {
    const arg = argv[i]!
    if (arg.startsWith('-') && arg !== '-') i = takeFlag(argv.slice(0, end), i, spec.flags, raw)
    else positionals.push(arg)
  }
  positionals.push(...argv.slice(end + 1))
  if (positionals.length > 0 && !spec.positionals) throw new UsageError(`unexpected argument '${positionals[0]}'`)
  return { values: convertAll(spec.flags, raw), positionals, help: false }
}

/** Reads the flag at argv[i] (and its value); returns the index of the last argument consumed. */
function takeFlag(argv: string[], i: number, flags: Record<string, FlagSpec>, raw: Map<string, string[]>): number {
  const arg = argv[i]!
  const eq = arg.indexOf('=')
  const written = eq < 0 ? arg : arg.slice(0, eq)
  const name = flagName(written, flags)
  const spec = flags[name]!
  let value: string
  if (eq >= 0) value = arg.slice(eq + 1)
  else if (spec.type === 'boolean') value = 'true'
  // A following '--flag' is a forgotten value, not a value ('--limit --json').
  else if (i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) value = argv[++i]!
  else throw new UsageError(`--${name}: expected a value`)
  const seen = raw.get(name)
  if (seen && spec.type !== 'list') throw new UsageError(`--${name}: given more than once`)
  raw.set(name, [...(seen ?? []), value])
  return i
}

function flagName(written: string, flags: Record<string, FlagSpec>): string {
  if (written.startsWith('--') && Object.hasOwn(flags, written.slice(2))) return written.slice(2)
  if (!written.startsWith('--')) {
    const hit = Object.entries(flags).find(([, f]) => f.short !== undefined && `-${f.short}` === written)
    if (hit) return hit[0]
  }
  throw new UsageError(`unknown flag '${written}'`)
}

function convertAll<F extends Record<string, FlagSpec>>(flags: F, raw: Map<string, string[]>): FlagValues<F> {
  const out: Record<string, unknown> = {}
  for (const [name, spec] of Object.entries(flags)) {
    const given = raw.get(name)
    if (given) out[name] = convert(name, spec, given)
    else if (spec.required) throw new UsageError(`--${name}: required`)
    else out[name] = spec.default ?? (spec.type === 'boolean' ? false : spec.type === 'list' ? [] : undefined)
  }
  return out as FlagValues<F>
}

/** Converts the written value(s) of one flag to its kind, checking choices and bounds. */
export function convert(name: string, spec: FlagSpec, given: string[]): string | number | boolean | string[] {
  const v = given.at(-1)!
  switch (spec.type) {
    case 'boolean':
      if (v === 'true' || v === 'false') return v === 'true'
      throw new UsageError(`--${name}: expected true or false, got '${v}'`)
    case 'list':
      return given
        .flatMap(g => g.split(','))
        .map(s => s.trim())
        .filter(s => s !== '')
    case 'number':
    case 'int':
      return toNumber(name, spec, v)
    default:
      if (spec.choices && !spec.choices.includes(v))
        throw new UsageError(`--${name}: expected one of ${spec.choices.join(', ')}, got '${v}'`)
      return v
  }
}

function toNumber(name: string, spec: FlagSpec, v: string): number {
  const n = v.trim() === '' ? NaN : Number(v)
  const isInt = spec.type === 'int'
  const ok = Number.isFinite(n) && (!isInt || Number.isSafeInteger(n)) && (spec.min === undefined || n >= spec.min)
  if (!ok) throw new UsageError(`--${name}: expected ${describe(spec)}, got '${v}'`)
  return n
}

function describe(spec: FlagSpec): string {
  const what = spec.type === 'int' ? 'integer' : 'number'
  if (spec.min === 0) return `a non-negative ${what}`
  if (spec.min === 1 && spec.type === 'int') return 'a positive integer'
  return spec.min === undefined
    ? `${spec.type === 'int' ? 'an' : 'a'} ${what}`
    : `${spec.type === 'int' ? 'an' : 'a'} ${what} ≥ ${spec.min}`
}

/** The `--help` text of a command: usage line, summary, one line per flag, notes. */
export function formatHelp(spec: CommandSpec<Record<string, FlagSpec>>): string {
  const rows = Object.entries(spec.flags).map(([name, f]) => {
    const short = f.short ? `-${f.short}, ` : ''
    const left = `${short}--${name}${f.type === 'boolean' ? '' : ` <${f.placeholder ?? f.type}>`}`
    const extra = [
      f.required ? 'required' : '',
      f.default !== undefined ? `default ${String(f.default)}` : '',
      f.choices ? `one of ${f.choices.join('|')}` : '',
    ]
      .filter(Boolean)
      .join('; ')
    return [left, extra ? `${f.help} (${extra})` : f.help] as const
  })
  rows.push(['-h, --help', 'show this help'])
  const width = Math.max(...rows.map(r => r[0].length)) + 2
  const lines = [
    `usage: snaptrain ${spec.name} [options]`,
    '',
    spec.summary,
    '',
    'options:',
    ...rows.map(([l, r]) => `  ${l.padEnd(width)}${r}`),
  ]
  if (spec.notes) lines.push('', spec.notes)
  return lines.join('\n')
}

/**
 * Parses for a command's `run`: on `--help` prints help and returns exit code 0; on a usage
 * error prints one line naming the flag plus a hint and returns 2; else returns the parsed args.
 */
export function parseCommand<const F extends Record<string, FlagSpec>>(
  argv: string[],
  spec: CommandSpec<F>,
  io: CliIo,
): ParsedArgs<F> | number {
  try {
    const parsed = parseArgs(argv, spec)
    if (!parsed.help) return parsed
    io.out(formatHelp(spec))
    return 0
  } catch (e) {
    if (!(e instanceof UsageError)) throw e
    io.err(`snaptrain ${spec.name}: ${e.message} (see 'snaptrain ${spec.name} --help')`)
    return 2
  }
}
