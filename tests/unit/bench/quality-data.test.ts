import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { describe, expect, test } from 'vitest'
import { convert, DIAMOND_CLARITY, parseLibsvm, PUBLIC_TABLES, type PublicTable } from '../../../bench/quality-data.ts'
import { type CategoricalRow, categoricalMarkdown, categoricalSummary } from '../../../bench/quality.ts'
import { compareMetric, peerParams, TASKS, tasksMarkdown, type TaskRow } from '../../../bench/quality-tasks.ts'
import { groupSizes } from '../../../bench/quality-rows.ts'

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

  test('a class label is the index of its value in the given order, else among the sorted values', () => {
    const csv = 'rownames,g,x\n1,b,1\n2,c,2\n3,a,3\n4,b,4\n'
    const given = convert(
      't',
      { origin: 't', label: 'k', classes: { column: 'g', order: ['c', 'b', 'a'] }, drop: ['g'] },
      csv,
    )
    expect(Array.from(given.frame.columns.k as Int32Array)).toEqual([1, 0, 2, 1])
    expect(given.specs.map(c => c.name)).toEqual(['rownames', 'x', 'k'])
    const sorted = convert('t', { origin: 't', label: 'k', classes: { column: 'g' }, drop: ['g'] }, csv)
    expect(Array.from(sorted.frame.columns.k as Int32Array)).toEqual([1, 2, 0, 1])
    expect(() =>
      convert('t', { origin: 't', label: 'k', classes: { column: 'g', order: ['a', 'b'] }, drop: ['g'] }, csv),
    ).toThrow(/bench\/data\/t: line 3: no integer label k \(from g\)/)
    expect(() => convert('t', { origin: 't', label: 'k', labelOf: r => Number(r('x')) / 2, drop: [] }, csv)).toThrow(
      /line 2: no integer label k/,
    )
  })

  test('the committed sources convert to the documented rows, levels and labels', () => {
    const texts = new Map<string, string>()
    const text = (file: string): string => {
      if (!texts.has(file))
        texts.set(file, gunzipSync(readFileSync(join('bench', 'data', file, `${file}.csv.gz`))).toString('utf8'))
      return texts.get(file)!
    }
    const frames = new Map(
      Object.entries(PUBLIC_TABLES).map(([name, spec]) => [name, convert(name, spec, text(spec.file ?? name))]),
    )
    const frame = (name: string) => frames.get(name)!.frame
    const rows = (name: string): number => frame(name).numRows
    const levels = (name: string, column: string): number => new Set(frame(name).columns[column] as string[]).size
    const label = (name: string): Int32Array => frame(name).columns[PUBLIC_TABLES[name].label] as Int32Array
    const count = (a: Int32Array, v: number): number => a.filter(x => x === v).length
    expect([rows('lending_club'), levels('lending_club', 'sub_grade'), levels('lending_club', 'addr_state')]).toEqual([
      9857, 35, 50,
    ])
    expect([rows('nycflights'), levels('nycflights', 'dest')]).toEqual([32735, 102])
    expect([rows('mlc_churn'), levels('mlc_churn', 'state')]).toEqual([5000, 51])
    expect([rows('ames'), levels('ames', 'Neighborhood')]).toEqual([2930, 28])
    // diamonds: 8 clarity grades in GIA order (I1 741 stones, IF 1,790), price a label of its own table.
    const clarity = label('diamonds_clarity')
    expect([rows('diamonds_clarity'), Math.max(...clarity) + 1, DIAMOND_CLARITY.length]).toEqual([53940, 8, 8])
    expect([count(clarity, 0), count(clarity, 7)]).toEqual([741, 1790])
    expect(frames.get('diamonds_clarity')!.specs.map(c => c.name)).not.toContain('clarity')
    expect([label('diamonds_price')[0], Math.max(...label('diamonds_price'))]).toEqual([326, 18823])
    // ames: 28 neighbourhoods, the coordinates dropped.
    const hood = label('ames_neighborhood')
    expect(new Set(hood).size).toBe(28)
    expect(frames.get('ames_neighborhood')!.specs.map(c => c.name)).not.toContain('Latitude')
    expect([rows('ames_price'), Math.max(...label('ames_price'))]).toEqual([2930, 755000])
    expect([Math.min(...label('nycflights_delay')), Math.max(...label('nycflights_delay'))]).toEqual([-73, 1272])
    expect([rows('rwm5yr'), Math.max(...label('rwm5yr'))]).toEqual([19609, 121])
    expect(frames.get('rwm5yr')!.specs.map(c => c.name)).not.toContain('hospvis')
    // nass_cds: 1,180 deaths of 26,217 occupants; the weight column kept (the task's --weight), injSeverity dropped.
    const nass = frames.get('nass_cds')!
    expect([rows('nass_cds'), count(label('nass_cds'), 1)]).toEqual([26217, 1180])
    expect(nass.specs.find(c => c.name === 'weight')?.type).toBe('double')
    expect(nass.specs.map(c => c.name)).not.toContain('injSeverity')
  })
})

describe('ranking table (libsvm + query files)', () => {
  test('parseLibsvm reads labels, sparse entries and the group pointer', () => {
    const r = parseLibsvm('t', '2 1:0.5 3:1\n0 2:0.25\n\n1 1:1\n', '2\n1\n')
    expect(Array.from(r.labels)).toEqual([2, 0, 1])
    expect(r.entries).toEqual([
      [
        [1, 0.5],
        [3, 1],
      ],
      [[2, 0.25]],
      [[1, 1]],
    ])
    expect(Array.from(r.groups)).toEqual([0, 2, 3])
    expect(Array.from(groupSizes(r.groups))).toEqual([2, 1])
  })

  test('parseLibsvm refuses what it cannot read, naming the file and line', () => {
    expect(() => parseLibsvm('t', '1 1:0.5\n', '2\n')).toThrow(/t.query: the groups hold 2 rows, the file 1/)
    expect(() => parseLibsvm('t', 'x 1:0.5\n', '1\n')).toThrow(/t: line 1: label 'x' is not a number/)
    expect(() => parseLibsvm('t', '1 a:0.5\n', '1\n')).toThrow(/t: line 1: 'a:0.5' is not index:value/)
    expect(() => parseLibsvm('t', '1 1:0.5\n', '0\n1\n')).toThrow(/t.query: line 1: '0' is not a group size/)
  })

  test('the committed LightGBM sample holds the documented rows and query groups', () => {
    const read = (f: string) =>
      parseLibsvm(
        f,
        gunzipSync(readFileSync(join('bench', 'data', 'letor_sample', `${f}.gz`))).toString('utf8'),
        readFileSync(join('bench', 'data', 'letor_sample', `${f}.query`), 'utf8'),
      )
    const train = read('rank.train'),
      test = read('rank.test')
    expect([train.labels.length, train.groups.length - 1, test.labels.length, test.groups.length - 1]).toEqual([
      3005, 201, 768, 50,
    ])
    expect([Math.min(...train.labels), Math.max(...train.labels)]).toEqual([0, 4])
  })
})

describe('task comparison', () => {
  test('scores are compared by |Δ| ≤ 0.005, losses by 1 % of XGBoost', () => {
    expect(compareMetric('auc', 0.8, 0.796)).toMatchObject({ tolerance: 'absolute', pass: true })
    expect(compareMetric('ndcg@10', 0.8, 0.794)).toMatchObject({ tolerance: 'absolute', pass: false })
    expect(compareMetric('rmse', 101, 100)).toMatchObject({ tolerance: 'relative', pass: true })
    expect(compareMetric('rmse', 98.9, 100)).toMatchObject({ tolerance: 'relative', pass: false })
    expect(compareMetric('tweedie-nloglik@1.5', 6.1, 6)).toMatchObject({ tolerance: 'relative', pass: false })
  })

  test("peerParams gives XGBoost a named monotone constraint as '(…)' over the exported features", () => {
    const p = peerParams(TASKS['diamonds-price-monotone'], ['x', 'carat', 'cut'], 3932.5)
    expect(p).toMatchObject({ objective: 'reg:squarederror', monotone_constraints: '(0,1,0)', base_score: 3932.5 })
    expect(peerParams(TASKS['diamonds-price'], ['carat'], 1)).not.toHaveProperty('monotone_constraints')
    expect(peerParams(TASKS['letor-ndcg'], ['f1'], 0.5)).not.toHaveProperty('lambdarank_pair_method')
  })

  test('tasksMarkdown shows accuracy and losses with their tolerance and flags misses and tasks that did not run', () => {
    const row: TaskRow = {
      task: 't',
      table: 'tab',
      what: 'w',
      objective: 'multi:softprob',
      rowsTrain: 8,
      rowsValid: 2,
      groups: [3, 1],
      features: 2,
      metrics: [compareMetric('mlogloss', 1.02, 1), { ...compareMetric('merror', 0.7, 0.71), metric: 'accuracy' }],
      oursSeconds: 1,
      xgboostVersion: '1.7.4',
    }
    const md = tasksMarkdown([row, { ...row, task: 'u', metrics: [], error: 'ours: bad objective' }])
    expect(md).toMatch(
      /\| t \(tab: w\) \| multi:softprob \| 8 \/ 2 \(3 \/ 1 queries\) \| mlogloss \| 1\.02000 \| 1\.00000 \| \+0\.02000 \(2\.00 %\) \| ±1 % \| \*\*NO\*\* \|/,
    )
    expect(md).toMatch(/\| \| \| \| accuracy \| 0\.70000 \| 0\.71000 \| -0\.01000 \| ±0\.005 \| \*\*NO\*\* \|/)
    expect(md).toMatch(/\| u \(tab: w\) .* \| — \| not run: ours: bad objective \|/)
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
