import { describe, expect, it } from 'vitest'
import { formatHelp, parseArgs, parseCommand, UsageError } from '../../../src/cli/args.ts'
import type { CliIo } from '../../../src/cli/io.ts'

const SPEC = {
  name: 'demo',
  summary: 'A demo command.',
  flags: {
    table: { type: 'string', required: true, placeholder: 'dir|url', help: 'table root' },
    version: { type: 'int', min: 0, help: 'table version' },
    rate: { type: 'number', help: 'a rate' },
    limit: { type: 'int', min: 1, short: 'n', help: 'max rows' },
    columns: { type: 'list', help: 'columns' },
    json: { type: 'boolean', help: 'summary' },
    format: { type: 'string', choices: ['jsonl', 'csv'], default: 'jsonl', help: 'output format' },
  },
  notes: 'environment:\n  DEMO_ENV  something',
} as const

function capture(): CliIo & { outs: string[]; errs: string[] } {
  const outs: string[] = []
  const errs: string[] = []
  return {
    outs,
    errs,
    out: l => {
      outs.push(l)
    },
    err: l => {
      errs.push(l)
    },
  }
}

function usageMessage(argv: string[]): string {
  try {
    parseArgs(argv, SPEC)
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError)
    return (e as Error).message
  }
  throw new Error(`no usage error for ${argv.join(' ')}`)
}

describe('parseArgs', () => {
  it('reads --flag value and --flag=value of every kind', () => {
    const { values } = parseArgs(
      [
        '--table',
        'd',
        '--version=3',
        '--rate',
        '-0.5',
        '-n',
        '7',
        '--columns',
        'a,b',
        '--columns=c',
        '--json',
        '--format=csv',
      ],
      SPEC,
    )
    expect(values).toEqual({
      table: 'd',
      version: 3,
      rate: -0.5,
      limit: 7,
      columns: ['a', 'b', 'c'],
      json: true,
      format: 'csv',
    })
  })

  it('fills defaults: false for booleans, [] for lists, declared defaults, undefined otherwise', () => {
    const { values } = parseArgs(['--table=x'], SPEC)
    expect(values).toEqual({
      table: 'x',
      version: undefined,
      rate: undefined,
      limit: undefined,
      columns: [],
      json: false,
      format: 'jsonl',
    })
  })

  it('keeps values that contain = and accepts --bool=false', () => {
    const { values } = parseArgs(['--table=a=b', '--json=false'], SPEC)
    expect(values.table).toBe('a=b')
    expect(values.json).toBe(false)
  })

  it('names the flag and the bad value', () => {
    expect(usageMessage(['--table=x', '--version', 'x'])).toBe("--version: expected a non-negative integer, got 'x'")
    expect(usageMessage(['--table=x', '--version=-1'])).toBe("--version: expected a non-negative integer, got '-1'")
    expect(usageMessage(['--table=x', '--version=1.5'])).toBe("--version: expected a non-negative integer, got '1.5'")
    expect(usageMessage(['--table=x', '--limit=0'])).toBe("--limit: expected a positive integer, got '0'")
    expect(usageMessage(['--table=x', '--rate=abc'])).toBe("--rate: expected a number, got 'abc'")
    expect(usageMessage(['--table=x', '--format=xml'])).toBe("--format: expected one of jsonl, csv, got 'xml'")
    expect(usageMessage(['--table=x', '--json=yes'])).toBe("--json: expected true or false, got 'yes'")
  })

  it('rejects unknown flags, missing values, repeats, missing required flags and stray arguments', () => {
    expect(usageMessage(['--table=x', '--bogus'])).toBe("unknown flag '--bogus'")
    expect(usageMessage(['--table=x', '-q'])).toBe("unknown flag '-q'")
    expect(usageMessage(['--table'])).toBe('--table: expected a value')
    expect(usageMessage(['--table', 'x', '--limit', '--json'])).toBe('--limit: expected a value')
    expect(usageMessage(['--table=x', '--version=1', '--version=2'])).toBe('--version: given more than once')
    expect(usageMessage([])).toBe('--table: required')
    expect(usageMessage(['--table=x', 'extra'])).toBe("unexpected argument 'extra'")
  })

  it('reports --help without validating the rest', () => {
    expect(parseArgs(['--bogus', '--version=x', '--help'], SPEC).help).toBe(true)
    expect(parseArgs(['-h'], SPEC).help).toBe(true)
  })

  it('takes everything after -- as positionals when allowed', () => {
    const parsed = parseArgs(['--table=x', '--', '--json'], { ...SPEC, positionals: true })
    expect(parsed.positionals).toEqual(['--json'])
    expect(parsed.values.json).toBe(false)
  })
})

describe('formatHelp / parseCommand', () => {
  it('lists every flag with placeholder, help, default and choices', () => {
    const help = formatHelp(SPEC)
    expect(help).toContain('usage: snaptrain demo [options]')
    expect(help).toMatch(/--table <dir\|url>\s+table root \(required\)/)
    expect(help).toMatch(/-n, --limit <int>\s+max rows/)
    expect(help).toMatch(/--format <string>\s+output format \(default jsonl; one of jsonl\|csv\)/)
    expect(help).toMatch(/--json\s+summary/)
    expect(help).toContain('DEMO_ENV')
  })

  it('prints help and returns 0', () => {
    const io = capture()
    expect(parseCommand(['--help'], SPEC, io)).toBe(0)
    expect(io.outs.join('\n')).toContain('--columns')
  })

  it('prints one usage line naming the flag and returns 2', () => {
    const io = capture()
    expect(parseCommand(['--table=x', '--version', 'x'], SPEC, io)).toBe(2)
    expect(io.errs).toEqual([
      "snaptrain demo: --version: expected a non-negative integer, got 'x' (see 'snaptrain demo --help')",
    ])
  })

  it('returns the parsed values otherwise', () => {
    const parsed = parseCommand(['--table=x'], SPEC, capture())
    expect(typeof parsed).toBe('object')
    if (typeof parsed === 'object') expect(parsed.values.table).toBe('x')
  })
})
