import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { convert, PUBLIC_TABLES, type PublicTable } from '../../../bench/quality-data.ts'
import { type CategoricalRow, categoricalMarkdown, categoricalSummary } from '../../../bench/quality.ts'

const spec: PublicTable = {
  origin: 'test',
  label: 'yes',
  labelOf: r => (r('y') === 'a' ? 1 : 0),
  drop: ['rownames', 'y'],
}

describe('public quality tables', () => {
  test('convert types columns by their values, derives the label and drops the listed columns', () => {
    const csv = 'rownames,n,x,s,y\n1,3,1.5,p,a\n2,NA,NA,NA,b\n3,-7,2,q,a\n'
    const { specs, frame } = convert('t', spec, csv)
    expect(specs).toEqual([
      { name: 'n', type: 'integer', nullable: true },
      { name: 'x', type: 'double', nullable: true },
      { name: 's', type: 'string', nullable: true },
      { name: 'yes', type: 'integer', nullable: false },
    ])
    expect(frame.numRows).toBe(3)
    expect(frame.columns.n).toEqual([3, null, -7])
    expect(Array.from(frame.columns.x as Float64Array)).toEqual([1.5, NaN, 2])
    expect(frame.columns.s).toEqual(['p', null, 'q'])
    expect(Array.from(frame.columns.yes as Int32Array)).toEqual([1, 0, 1])
  })

  test('convert refuses what it cannot read, naming the file', () => {
    expect(() => convert('t', spec, 'rownames,y\n1,"a"\n')).toThrow(/bench\/data\/t: quoted/)
    expect(() => convert('t', spec, 'rownames,y\n1,a,b\n')).toThrow(/line 2 has 3 fields, the header 2/)
    expect(() => convert('t', spec, 'rownames,z\n1,a\n')).toThrow(/no column y to drop/)
  })

  test('the committed sources convert to the documented rows and levels', () => {
    const frames = new Map(
      Object.keys(PUBLIC_TABLES).map(name => {
        const text = gunzipSync(readFileSync(join('bench', 'data', name, `${name}.csv.gz`))).toString('utf8')
        return [name, convert(name, PUBLIC_TABLES[name], text).frame]
      }),
    )
    const rows = (name: string): number => frames.get(name)!.numRows
    const levels = (name: string, column: string): number => new Set(frames.get(name)!.columns[column] as string[]).size
    expect([rows('lending_club'), levels('lending_club', 'sub_grade'), levels('lending_club', 'addr_state')]).toEqual([
      9857, 35, 50,
    ])
    expect([rows('nycflights'), levels('nycflights', 'dest')]).toEqual([32735, 102])
    expect([rows('mlc_churn'), levels('mlc_churn', 'state')]).toEqual([5000, 51])
    expect([rows('ames'), levels('ames', 'Neighborhood')]).toEqual([2930, 28])
  })
})

describe('categorical comparison output', () => {
  const mode = (ours: number, xgboost: number, bestOurs = ours) => ({
    ours,
    xgboost,
    oursBest: [bestOurs, 7] as [number, number],
    xgboostBest: [xgboost, 8] as [number, number],
    oursSeconds: 1,
  })
  const row = (table: string, o: number, h: number, p: number): CategoricalRow => ({
    table,
    label: 'y',
    rowsTrain: 8,
    rowsValid: 2,
    features: 3,
    categorical: [
      { name: 'a', levels: 2 },
      { name: 'b', levels: 50 },
      { name: 'c', levels: 35 },
      { name: 'd', levels: 3 },
    ],
    modes: { ordinal: mode(o, o), onehot: mode(h, h - 0.01), partition: mode(p, p) },
    xgboostVersion: '1.7.4',
  })

  test('categoricalMarkdown names the largest categoricals and flags a |Δ| above 0.003', () => {
    const md = categoricalMarkdown([row('t', 0.7, 0.6, 0.65)])
    expect(md).toMatch(
      /\| t \(y\) \| 8 \/ 2 \| b 50, c 35, d 3, \+1 with ≤ 2 \| ordinal codes \| 0\.70000 \| 0\.70000 \| \+0\.00000 \| yes \|/,
    )
    expect(md).toMatch(
      /\| \| \| \| one-hot only \| 0\.60000 \| 0\.59000 \| \+0\.01000 \| NO \| 0\.60000 \(7\) \/ 0\.59000 \(8\) \|/,
    )
  })

  test('categoricalSummary counts the tables each split kind wins and averages the AUC', () => {
    const md = categoricalSummary([row('t', 0.7, 0.6, 0.65), row('u', 0.5, 0.8, 0.6)])
    expect(md).toMatch(/\| snaptrain, last round \| 0\.60000 \(1\) \| 0\.70000 \(1\) \| 0\.62500 \(0\) \|/)
  })
})
