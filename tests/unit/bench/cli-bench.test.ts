import { describe, expect, test } from 'vitest'
import { fileStamp, parseBenchArgs, run, suiteScript, withBenchTimeout } from '../../../bench/cli.ts'
import { assertSuiteName } from '../../../bench/suites.ts'
import { GBDT_SIZES, GBDT_SIZES_QUICK, gbdtSizes } from '../../../bench/gbdt-types.ts'
import type { CliIo } from '../../../src/cli/io.ts'

function captureIo(): CliIo & { outs: string[]; errs: string[] } {
  const outs: string[] = [],
    errs: string[] = []
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

describe('snaptrain bench arguments', () => {
  test('defaults', () => {
    expect(parseBenchArgs([])).toEqual({
      suite: 'device',
      quick: false,
      json: false,
      markdown: false,
      timeoutS: 900,
      help: false,
    })
  })
  test('all flags, spaced and with =', () => {
    expect(
      parseBenchArgs(['--suite', 'all', '--out=x.json', '--quick', '--json', '--markdown', '--timeout', '30']),
    ).toEqual({ suite: 'all', out: 'x.json', quick: true, json: true, markdown: true, timeoutS: 30, help: false })
  })
  test('bad input is named', () => {
    expect(() => parseBenchArgs(['--suite'])).toThrow(/--suite needs a value/)
    expect(() => parseBenchArgs(['--suite', '--json'])).toThrow(/--suite needs a value/)
    expect(() => parseBenchArgs(['--frobnicate'])).toThrow(/unknown option '--frobnicate'/)
    expect(() => parseBenchArgs(['--timeout', '-3'])).toThrow(/--timeout must be a positive/)
  })
  test('unknown suite: exit 2, message names it and lists suites, no browser started', async () => {
    const io = captureIo()
    expect(await run(['--suite', 'nope'], io)).toBe(2)
    expect(io.errs.join('\n')).toMatch(
      /unknown bench suite 'nope' \(suites: device, loader, gbdt, recsys, sweep, scaleout, all\)/,
    )
    expect(() => assertSuiteName('device')).not.toThrow()
    expect(() => assertSuiteName('all')).toThrow(/'all'/)
  })
  test('--tables DIR: parsed, and a folder without clicks or marketing is exit 2 naming it, no browser started', async () => {
    expect(parseBenchArgs(['--suite', 'recsys', '--tables', 'some/dir']).tables).toBe('some/dir')
    expect(() => parseBenchArgs(['--tables'])).toThrow(/--tables needs a value/)
    const io = captureIo()
    expect(await run(['--suite', 'recsys', '--tables', 'no/such/folder'], io)).toBe(2)
    expect(io.errs.join('\n')).toMatch(/--tables no\/such\/folder: no clicks or marketing table in that folder/)
  })
  test('--rows N: parsed; not an integer >= 100 is named; gbdtSizes makes one size of N rows at the preset rounds', () => {
    expect(parseBenchArgs(['--suite', 'gbdt', '--rows', '2000']).rows).toBe(2000)
    expect(parseBenchArgs(['--rows=150']).rows).toBe(150)
    for (const bad of ['99', '2.5', 'lots', '-1'])
      expect(() => parseBenchArgs(['--rows', bad])).toThrow(/--rows must be an integer >= 100 \(rows\), got/)
    expect(() => parseBenchArgs(['--rows'])).toThrow(/--rows needs a value/)
    expect(gbdtSizes(true)).toBe(GBDT_SIZES_QUICK)
    expect(gbdtSizes(false)).toBe(GBDT_SIZES)
    expect(gbdtSizes(true, 2000)).toEqual([{ rows: 2000, rounds: GBDT_SIZES_QUICK[0].rounds }])
    expect(gbdtSizes(false, 5000)).toEqual([{ rows: 5000, rounds: GBDT_SIZES[0].rounds }])
    expect(() => gbdtSizes(true, 10)).toThrow(/rows must be an integer ≥ 100, got 10/)
  })
  test('--help prints usage with the suite list', async () => {
    const io = captureIo()
    expect(await run(['--help'], io)).toBe(0)
    expect(io.outs.join('\n')).toMatch(/--suite NAME[\s\S]*--rows N[\s\S]*device/)
  })
})

describe('snaptrain bench helpers', () => {
  test('fileStamp makes ISO dates file-safe', () => {
    expect(fileStamp('2026-11-30T03:19:36.239Z')).toBe('2026-11-30T03-19-36Z')
  })
  test("suiteScript embeds arguments as JSON and drives bench.html's window.snaptrainBench only", () => {
    const s = suiteScript("de'vice", true, 'abc')
    expect(s).toContain('"de\'vice"')
    expect(s).toContain('{"quick":true,"commit":"abc"}')
    expect(s).toMatch(/\bw\.snaptrainBench\.runBenchSuite\("de'vice", /)
    // The app's window.snaptrain has no bench entry (src/api.ts): the script must not look for one.
    expect(s).not.toMatch(/snaptrain\.bench\b/)
    expect(s).not.toContain('__name')
  })
  test('withBenchTimeout rejects naming the limit, and passes results through', async () => {
    await expect(withBenchTimeout(new Promise(() => {}), 0.01)).rejects.toThrow(/timed out after 0.01 s/)
    await expect(withBenchTimeout(Promise.resolve(4), 1)).resolves.toBe(4)
  })
})
