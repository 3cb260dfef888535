/**
 * The ONNX export through the real data path: a tiny recommender trained (CPU reference, in Node)
 * on a generated 3000-row clicks table served over HTTP; its model.bin scored by the predict path
 * (runRecsysPrediction, what `snaptrain predict --cpu` runs) and its model.onnx in onnxruntime-node
 * on the same table read raw with hyparquet (int64 ids as bigint, strings, floats, the list), in
 * table order: every row — the validation rows among them — within 1e-5. N = rows.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parquetReadObjects } from 'hyparquet'
import { compressors } from 'hyparquet-compressors'
import * as ort from 'onnxruntime-node'
import { planScan } from '../../../src/data/plan.ts'
import { decodeCheckpoint } from '../../../src/models/recsys/checkpoint.ts'
import { encodeOnnx, type OnnxInput, onnxInputs } from '../../../src/models/recsys/onnx.ts'
import { runRecsysPrediction } from '../../../src/models/recsys/predict-run.ts'
import { runTraining } from '../../../src/run/pipeline.ts'
import type { RecsysTrainResult } from '../../../src/models/recsys/family.ts'
import { serveDirectory, type ServedDirectory } from '../../../src/serve/server.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { runMain } from '../../support/cli.ts'

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-onnx-clicks-'))
let server: ServedDirectory
let url: string

beforeAll(async () => {
  const gen = await runMain(['data', '--out', tmp, '--rows', '3000', '--marketing-rows', '500', '--tables', 'clicks'])
  expect(gen.code, gen.stderr).toBe(0)
  server = await serveDirectory(tmp)
  url = `${server.url}clicks/`
}, 30_000)
afterAll(async () => {
  await server?.close()
  rmSync(tmp, { recursive: true, force: true })
})

/** The table's live rows read raw, in table order (files in the order of the plan's units). */
async function tableRows(): Promise<Record<string, unknown>[]> {
  const plan = await planScan(await openSnapshot(url), {})
  const files = [...new Set(plan.units.map(u => u.fileIndex))].map(i => plan.files[i].path)
  const rows: Record<string, unknown>[] = []
  for (const path of files) {
    const bytes = readFileSync(join(tmp, 'clicks', decodeURIComponent(path)))
    const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    rows.push(...(await parquetReadObjects({ file, compressors })))
  }
  expect(rows).toHaveLength(plan.stats.rows)
  return rows
}

/** ONNX feeds of `rows`: each column as its input's type; bags as flat items + offsets. */
function feeds(inputs: OnnxInput[], rows: Record<string, unknown>[]): Record<string, ort.Tensor> {
  const out: Record<string, ort.Tensor> = {}
  const n = rows.length
  for (const i of inputs) {
    if (i.name.endsWith('.offsets') && inputs.some(j => `${j.name}.offsets` === i.name)) continue
    const bag = inputs.some(j => j.name === `${i.name}.offsets`)
    // A bag's null items are left out, a null list is empty (as the loader's hash_list).
    const cells = rows.map(r => (bag ? ((r[i.name] as unknown[] | null) ?? []).filter(v => v != null) : r[i.name]))
    const values = cells.flat()
    const dims = bag ? [values.length] : i.dims.map(d => (d === 'N' ? n : (d as number)))
    out[i.name] = tensor(i.type, values, dims)
    if (bag) {
      const offsets = [0n]
      for (const c of cells as unknown[][]) offsets.push(offsets.at(-1)! + BigInt(c.length))
      out[`${i.name}.offsets`] = new ort.Tensor('int64', BigInt64Array.from(offsets), [n + 1])
    }
  }
  return out
}

function tensor(type: OnnxInput['type'], values: unknown[], dims: number[]): ort.Tensor {
  if (type === 'int64')
    return new ort.Tensor(
      'int64',
      BigInt64Array.from(values, v => BigInt(v as number | bigint)),
      dims,
    )
  if (type === 'bool')
    return new ort.Tensor(
      'bool',
      Uint8Array.from(values, v => (v ? 1 : 0)),
      dims,
    )
  if (type === 'string') return new ort.Tensor('string', values as string[], dims)
  return new ort.Tensor(
    'float32',
    Float32Array.from(values, v => (v === null || v === undefined ? NaN : Number(v))),
    dims,
  )
}

describe('model.onnx on the clicks table', () => {
  test('every row (validation rows included) within 1e-5 of the predict path on model.bin', async () => {
    const t0 = performance.now()
    const r = await runTraining<RecsysTrainResult>({
      table: url,
      model: 'recsys',
      label: 'label',
      params: { epochs: 1, batch_size: 512, layers: [8], embedding_dim: 4, eval_every: 4, log1p: ['dense_6'] },
      backend: 'cpu',
      workers: 0,
    })
    const model = r.model as Uint8Array<ArrayBuffer>
    const ck = decodeCheckpoint(model)
    const t1 = performance.now()
    const ours = await runRecsysPrediction({ model, table: url, cpu: true, workers: 0 })
    const rows = await tableRows()
    const t2 = performance.now()
    const session = await ort.InferenceSession.create(encodeOnnx(ck))
    const got = await session.run(feeds(onnxInputs(ck.layout), rows))
    await session.release()
    const prediction = got.prediction.data as Float32Array
    const t3 = performance.now()
    expect(ck.layout.sparse.map(f => f.type)).toContain('long')
    expect(ck.layout.sparse.map(f => f.type)).toContain('string')
    expect(prediction).toHaveLength(ours.rows)
    expect(new Set(ours.predictions).size).toBeGreaterThan(100) // a model whose scores tell rows apart
    let d = 0
    for (let i = 0; i < prediction.length; i++) d = Math.max(d, Math.abs(prediction[i] - ours.predictions[i]))
    console.log(
      `onnx clicks: max |Δ prediction| = ${d.toExponential(2)} over ${prediction.length} rows ` +
        `(train ${(t1 - t0).toFixed(0)} ms, predict + read ${(t2 - t1).toFixed(0)} ms, onnx ${(t3 - t2).toFixed(0)} ms)`,
    )
    expect(d).toBeLessThanOrEqual(1e-5)
  }, 60_000)
})
