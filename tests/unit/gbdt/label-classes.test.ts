/**
 * A string label of a multi:* run (issue 29): its values become classes through a sorted
 * dictionary (codes 0…K−1, TrainData.labelValues), the same codes in the Node precheck
 * (readLabels) and the page's load (loadDataset), refused without a multi:* objective, and a value
 * outside a given dictionary (a continued model's, a validation table's training classes) refused
 * naming the column, the value, the file and the row (marketing over a loopback server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { join } from 'node:path'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { PROJECT_ROOT } from '../../../src/serve/page-server.ts'
import { openSnapshot, readRows } from '../../../src/table/index.ts'
import { labelClasses, loadDataset } from '../../../src/eval/dataset.ts'
import { readLabels } from '../../../src/eval/labels.ts'
import { selectFeatures } from '../../../src/eval/features.ts'
import { gbdtFamily, runParams } from '../../../src/models/gbdt/family.ts'

let server: ServedDirectory
let url: string
beforeAll(async () => {
  server = await serveDirectory(join(PROJECT_ROOT, 'public', 'tables'))
  url = `${server.url}marketing/`
})
afterAll(async () => {
  await server?.close()
})

describe('labelClasses', () => {
  const at = { paths: ['a.parquet', 'a.parquet', 'b.parquet', 'b.parquet'], rows: Uint32Array.of(0, 1, 0, 1) }
  it('codes by the sorted distinct values; null stays NaN', () => {
    const { codes, values } = labelClasses('y', ['pear', 'apple', null, 'fig'], undefined, at)
    expect(values).toEqual(['apple', 'fig', 'pear'])
    expect(Array.from(codes)).toEqual([2, 0, NaN, 1])
  })
  it('a given dictionary keeps its codes and refuses a value it lacks, naming it', () => {
    expect(Array.from(labelClasses('y', ['b', 'a'], ['a', 'b', 'c'], at).codes)).toEqual([1, 0])
    expect(() => labelClasses('y', ['a', 'b', 'zz', 'a'], ['a', 'b'], at)).toThrow(
      'label column y: value "zz" at b.parquet row 0 is not one of the training rows\' classes ("a", "b")',
    )
  })
})

describe('a string label through the dataset', () => {
  it('is refused without a multi:* objective, accepted with one', () => {
    return openSnapshot(url).then(snap => {
      expect(() => selectFeatures(snap.schema, 'marital', ['age'])).toThrow(
        /label column marital: must be numeric or boolean \(a string label needs a multi:\* objective/,
      )
      expect(selectFeatures(snap.schema, 'marital', ['age'], {}, true).features.map(f => f.name)).toEqual(['age'])
    })
  })

  it('loadDataset and readLabels code it alike: sorted classes, every row its value', async () => {
    const snapshot = await openSnapshot(url)
    const ds = await loadDataset({
      tableUrl: url,
      snapshot,
      label: 'marital',
      features: ['age', 'balance'],
      classLabels: true,
      validFraction: 0.2,
      seed: 3,
      workers: 0,
    })
    const rows = await readRows(snapshot, { columns: ['marital'] })
    const values = [...new Set(rows.map(r => r.marital as string))].sort()
    expect(ds.data.labelValues).toEqual(values)
    const n = ds.data.labels.length + ds.data.valid!.labels.length
    expect(n).toBe(rows.length)
    // Every class code names a value; the counts per value match the table's.
    const count = (labels: Float32Array, k: number) => labels.filter(y => y === k).length
    values.forEach((v, k) =>
      expect(count(ds.data.labels, k) + count(ds.data.valid!.labels, k)).toBe(rows.filter(r => r.marital === v).length),
    )
    const precheck = await readLabels(snapshot, { table: url, label: 'marital' }, true)
    expect(Array.from(precheck)).toEqual(rows.map(r => values.indexOf(r.marital as string)))
    await expect(readLabels(snapshot, { table: url, label: 'marital' })).rejects.toThrow(/needs a multi:\* objective/)
  })

  it("a given dictionary (a continued model's) refuses a class it lacks, naming the value and row", async () => {
    await expect(
      loadDataset({
        tableUrl: url,
        label: 'marital',
        features: ['age'],
        classLabels: true,
        labelValues: ['divorced', 'married'],
        seed: 3,
        workers: 0,
      }),
    ).rejects.toThrow(
      /label column marital: value "single" at part-\S+ row \d+ is not one of the training rows' classes \("divorced", "married"\)/,
    )
  })

  it('the GBDT precheck (Node, before a browser) takes it for multi:*, and refuses a num_class that is not its class count', async () => {
    const snapshot = await openSnapshot(url)
    const config = { table: url, label: 'marital', features: ['age'] }
    const check = (params: Record<string, unknown>) =>
      gbdtFamily.precheck!(snapshot, { ...config, params }, runParams({ params }))
    await expect(check({ objective: 'multi:softprob' })).resolves.toBeUndefined()
    await expect(check({ objective: 'multi:softmax', num_class: 3 })).resolves.toBeUndefined()
    await expect(check({ objective: 'multi:softprob', num_class: 4 })).rejects.toThrow(
      'num_class: 4, but the string label column marital has 3 distinct values (its classes); leave num_class out to infer it',
    )
    await expect(check({ objective: 'binary:logistic' })).rejects.toThrow(
      /label column marital: must be numeric or boolean/,
    )
  })
})
