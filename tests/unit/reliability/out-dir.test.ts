/**
 * Atomic outputs (src/cli/out-dir.ts): a run's files appear together or not at all; a failure
 * half-way leaves neither partial files nor temps, and an existing output folder keeps its
 * previous contents.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { atomicWrite, leftoverTemps, writeOutputs } from '../../../src/cli/out-dir.ts'

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-out-dir-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Contents whose write throws after the files before it were written (not a string or bytes). */
const POISON = 42 as unknown as string

describe('writeOutputs', () => {
  it('a new folder gets every file, in order, and no temps', () => {
    const dir = join(tmp, 'runs', 'a')
    const paths = writeOutputs(dir, {
      'model.json': '{}',
      'manifest.json': '{"m":1}\n',
      'metrics.csv': new Uint8Array([97, 10]),
    })
    expect(paths).toEqual(['model.json', 'manifest.json', 'metrics.csv'].map(n => join(dir, n)))
    expect(readdirSync(dir).sort()).toEqual(['manifest.json', 'metrics.csv', 'model.json'])
    expect(readFileSync(join(dir, 'metrics.csv'), 'utf8')).toBe('a\n')
    expect(leftoverTemps(dir)).toEqual([])
  })

  it('a failure half-way into a new folder leaves no folder and no temps', () => {
    const dir = join(tmp, 'runs', 'b')
    expect(() => writeOutputs(dir, { 'model.json': '{}', 'manifest.json': POISON, 'metrics.csv': 'x' })).toThrow()
    expect(existsSync(dir)).toBe(false)
    expect(leftoverTemps(dir)).toEqual([])
  })

  it('a failure half-way into an existing folder keeps its previous files untouched', () => {
    const dir = join(tmp, 'runs', 'c')
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'model.json'), 'old model')
    expect(() => writeOutputs(dir, { 'model.json': 'new model', 'manifest.json': POISON })).toThrow()
    expect(readdirSync(dir)).toEqual(['model.json'])
    expect(readFileSync(join(dir, 'model.json'), 'utf8')).toBe('old model')
    writeOutputs(dir, { 'model.json': 'new model', 'manifest.json': '{}' })
    expect(readFileSync(join(dir, 'model.json'), 'utf8')).toBe('new model')
    expect(leftoverTemps(dir)).toEqual([])
  })

  it('names with sub-folders (a continue bundle) are written in the same group, new folder or existing', () => {
    const dir = join(tmp, 'runs', 'e')
    writeOutputs(dir, { 'model.json': '{}', 'continue/continue.json': '{"a":1}\n' })
    expect(readFileSync(join(dir, 'continue', 'continue.json'), 'utf8')).toBe('{"a":1}\n')
    writeOutputs(dir, { 'model.json': '{"b":2}', 'continue/continue.json': '{"b":2}\n' })
    expect(readFileSync(join(dir, 'continue', 'continue.json'), 'utf8')).toBe('{"b":2}\n')
    expect(leftoverTemps(dir)).toEqual([])
    // A failure half-way into an existing folder removes the sub-folder it created, and its temps.
    const old = join(tmp, 'runs', 'f')
    mkdirSync(old, { recursive: true })
    writeFileSync(join(old, 'model.json'), 'old model')
    expect(() => writeOutputs(old, { 'model.json': 'new', 'continue/x.py': 'x', 'continue/y': POISON })).toThrow()
    expect(readdirSync(old)).toEqual(['model.json'])
    expect(() => writeOutputs(old, { 'continue/../x': '' })).toThrow(/plain name/)
  })

  it('refuses names that are paths or look like temps', () => {
    expect(() => writeOutputs(join(tmp, 'd'), { '../x': '' })).toThrow(/plain name/)
    expect(() => writeOutputs(join(tmp, 'd'), { 'a.tmp-1': '' })).toThrow(/plain name/)
    expect(existsSync(join(tmp, 'd'))).toBe(false)
  })
})

describe('atomicWrite', () => {
  it('replaces the file whole; a failed write leaves the old one and no temp', () => {
    const path = join(tmp, 'preds.csv')
    atomicWrite(path, 'margin,prediction\n1,2\n')
    expect(() => atomicWrite(path, POISON)).toThrow()
    expect(readFileSync(path, 'utf8')).toBe('margin,prediction\n1,2\n')
    expect(readdirSync(tmp).filter(n => n.startsWith('preds.csv'))).toEqual(['preds.csv'])
  })
})
