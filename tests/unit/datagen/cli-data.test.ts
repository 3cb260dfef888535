import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { run } from '../../../tools/datagen/cli.ts'
import type { CliIo } from '../../../src/cli/io.ts'

function capture(): CliIo & { outLines: string[]; errLines: string[] } {
  const outLines: string[] = []
  const errLines: string[] = []
  return {
    outLines,
    errLines,
    out: l => {
      outLines.push(l)
    },
    err: l => {
      errLines.push(l)
    },
  }
}

const out = mkdtempSync(join(tmpdir(), 'datagen-cli-'))
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe('snaptrain data', () => {
  test('writes the requested tables and prints a JSON summary', async () => {
    const io = capture()
    const code = await run(['--out', out, '--rows', '400', '--marketing-rows', '300', '--seed', '5', '--json'], io)
    expect(code).toBe(0)
    const summary = JSON.parse(io.outLines.at(-1) as string)
    expect(summary.tables.map((t: { table: string }) => t.table)).toEqual(['clicks', 'marketing'])
    expect(summary.tables[0].finalRows).toBe(440 - summary.tables[0].rowsDeleted)
    expect(summary.tables[1].finalRows).toBe(300)
    expect(existsSync(join(out, 'clicks', '_delta_log', '00000000000000000002.json'))).toBe(true)
    expect(io.errLines.some(l => l.includes('clicks v2: DELETE'))).toBe(true)
  })

  test('--if-missing skips up-to-date tables; --tables selects', async () => {
    const io = capture()
    expect(
      await run(
        [
          '--out',
          out,
          '--rows',
          '400',
          '--marketing-rows',
          '300',
          '--seed',
          '5',
          '--if-missing',
          '--tables',
          'marketing',
        ],
        io,
      ),
    ).toBe(0)
    expect(io.outLines).toHaveLength(1)
    expect(io.outLines[0]).toMatch(/^marketing: skipped/)
  })

  test.each([
    [['--rows', '5'], /--rows: expected an integer ≥ 100, got '5'/],
    [['--rows', 'many'], /--rows/],
    [['--seed', '-1'], /--seed/],
    [['--tables', 'clicks,nope'], /--tables: unknown table 'nope'/],
    [['--frobnicate'], /unknown flag '--frobnicate'/],
    [['--out'], /--out: expected a value/],
  ])('bad flags %j exit 2 naming the flag', async (argv, message) => {
    const io = capture()
    expect(await run(argv as string[], io)).toBe(2)
    expect(io.errLines.join('\n')).toMatch(message)
  })

  test('--help prints the options', async () => {
    const io = capture()
    expect(await run(['--help'], io)).toBe(0)
    expect(io.outLines.join('\n')).toMatch(/--if-missing/)
  })
})
