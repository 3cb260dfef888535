/**
 * `snaptrain train --model recsys` in-process (main with a captured io; the page in one headless
 * Chromium shared by the file, WebGPU): a small run on a generated ~21k-row clicks table writes model.bin (decodable
 * checkpoint), its ONNX export model.onnx, manifest.json and metrics.csv with the --json summary; bad parameters exit 2
 * before any browser starts; a missing feature, an id column with a null, a batch too large for
 * the adapter and a diverging lr exit 1 naming the column / parameter.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseMetricsCsv } from '../../../src/run/manifest.ts'
import { runExports } from '../../../src/models/recsys/export.ts'
import { decodeCheckpoint } from '../../../src/models/recsys/checkpoint.ts'
import { DeltaTableWriter } from '../../../tools/datagen/delta-writer.ts'
import { runMain, shareAppPage } from '../../support/cli.ts'

const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-train-recsys-'))
const TABLE = join(tmp, 'data', 'clicks')
/** A 3000-row clicks table for the run whose assertions hold at any size (--valid-table). */
const SMALL_TABLE = join(tmp, 'small', 'clicks')
const NULL_IDS = join(tmp, 'null-ids')
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

beforeAll(async () => {
  for (const [dir, rows] of [
    ['data', '20000'],
    ['small', '3000'],
  ]) {
    const gen = await runMain([
      'data',
      '--out',
      join(tmp, dir),
      '--rows',
      rows,
      '--marketing-rows',
      '500',
      '--tables',
      'clicks',
    ])
    expect(gen.code, gen.stderr).toBe(0)
  }
  await writeNullIdTable(NULL_IDS)
}, 60_000)
shareAppPage()

/** 64 rows; user_id is null in row 17. */
async function writeNullIdTable(dir: string): Promise<void> {
  const w = new DeltaTableWriter(
    dir,
    [
      { name: 'user_id', type: 'integer', nullable: true },
      { name: 'x', type: 'double', nullable: false },
      { name: 'label', type: 'integer', nullable: false },
    ],
    1,
    'null-ids',
  )
  const n = 64
  const frame = {
    numRows: n,
    columns: {
      user_id: Array.from({ length: n }, (_, i) => (i === 17 ? null : i % 5)),
      x: Float64Array.from({ length: n }, (_, i) => i / n),
      label: Int32Array.from({ length: n }, (_, i) => i % 2),
    },
  }
  const file = await w.writeDataFile(frame, n)
  await w.commit({ operation: 'WRITE', operationParameters: {}, operationMetrics: {} }, [file.add], [])
}

async function cli(args: string[]): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const r = await runMain(args)
  return { code: r.code, out: r.stdout, err: r.stderr, ms: r.ms }
}

const SMALL = {
  epochs: 1,
  batch_size: 1024,
  layers: [16, 8],
  embedding_dim: 4,
  eval_every: 8,
  lr: 0.01,
  embedding_lr: 0.1,
}

describe('snaptrain train --model recsys (generated clicks, 1 epoch)', () => {
  it('writes model.bin, model.onnx, manifest.json, metrics.csv and prints the summary', async () => {
    const out = join(tmp, 'run')
    const r = await cli([
      'train',
      '--model',
      'recsys',
      '--table',
      TABLE,
      '--label',
      'label',
      '--valid-fraction',
      '0.2',
      '--seed',
      '3',
      '--params',
      JSON.stringify(SMALL),
      '--out',
      out,
      '--json',
    ])
    // Progress counts optimizer steps: the last evaluation is at the last step of the epoch.
    const steps = [...r.err.matchAll(/\[step (\d+)\/(\d+)\] train_loss=\d\.\d+ auc=0\.\d+ logloss=/g)]
    expect(steps.length, r.err).toBe(3)
    expect(steps.at(-1)![1]).toBe(steps.at(-1)![2])
    expect(r.code).toBe(0)
    const s = JSON.parse(r.out.trim().split('\n').pop()!)
    expect(Number(steps.at(-1)![2])).toBe(s.steps)
    expect(Object.keys(s)).toEqual([
      'model',
      'auc',
      'logloss',
      'gauc',
      'calibration',
      'rounds',
      'best_iteration',
      'train_seconds',
      'rows_train',
      'rows_valid',
      'rows_per_second',
      'model_path',
      'manifest_path',
      'adapter',
      'samples_per_second',
      'epochs',
      'steps',
      'restored_best_step',
      'timing',
      'loader_reads',
    ])
    expect(s.restored_best_step).toBeNull() // no early stopping: restore_best is off
    // The time split: the loop's parts fit in its wall time, the loop in train_seconds.
    const t = s.timing
    expect(t.loop_s).toBeGreaterThan(0)
    expect(t.loop_s).toBeLessThanOrEqual(s.train_seconds)
    expect(t.input_wait_s + t.step_s + t.eval_s + t.readback_s).toBeLessThanOrEqual(t.loop_s)
    expect(t.featurize_s).toBeLessThanOrEqual(t.input_wait_s)
    expect(t.eval_s).toBeGreaterThan(0) // 3 evaluations of the validation rows
    expect(t.stats_s).toBeGreaterThan(0)
    const rows = s.rows_train + s.rows_valid
    const gen = JSON.parse(readFileSync(join(TABLE, '_generator.json'), 'utf8'))
    expect(rows).toBe(gen.finalRows)
    expect(s.rows_valid / rows).toBeGreaterThan(0.17)
    expect(s.rows_valid / rows).toBeLessThan(0.23)
    // Batches are cut from all rows, validation rows then dropped: ceil(rows / batch) steps per epoch.
    expect(s).toMatchObject({
      model: 'recsys',
      epochs: 1,
      steps: Math.ceil(rows / 1024),
      rounds: Math.ceil(Math.ceil(rows / 1024) / 8),
    })
    expect(s.auc).toBeGreaterThan(0.55)
    expect(s.auc).toBeLessThanOrEqual(1)
    expect(s.logloss).toBeGreaterThan(0)
    expect(s.gauc).toBeNull() // no gauc_group
    expect(s.calibration).toBeGreaterThan(0)
    expect(s.samples_per_second).toBeGreaterThan(0)
    expect(s.samples_per_second * s.train_seconds).toBeCloseTo(s.rows_train, -1)
    expect(s.best_iteration).toBeGreaterThanOrEqual(0)
    expect(s.best_iteration).toBeLessThan(s.rounds)
    expect(s.model_path).toBe(join(out, 'model.bin'))

    const metrics = parseMetricsCsv(readFileSync(join(out, 'metrics.csv'), 'utf8'))
    expect(metrics).toHaveLength(s.rounds)
    expect(metrics.map(m => m.step)).toEqual([8, 16, s.steps])
    expect(metrics[metrics.length - 1].auc).toBeCloseTo(s.auc, 12)
    expect(metrics[metrics.length - 1].calibration).toBeCloseTo(s.calibration, 12)
    for (const m of metrics) expect(Number.isFinite(m.train_loss)).toBe(true)

    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
    expect(m).toMatchObject({
      kind: 'snaptrain-run',
      model: 'recsys',
      label: 'label',
      seed: 3,
      filter: null,
      adapter: s.adapter,
      rounds: s.rounds,
      steps: s.steps,
    })
    expect(m.table).toMatchObject({ path: TABLE, version: 2, rows })
    expect(m.table.url).toBe(`${pathToFileURL(TABLE).href}/`) // the folder, not the loopback server's port
    expect(m.table.digest).toMatch(/^[0-9a-f]{8,}$/)
    // The default row key: the label and every scalar feature by name (list and bag columns have no key form).
    const scalar = m.features.filter((f: { type: string }) => !/^(list|bag)/.test(f.type))
    const key = [...scalar.map((f: { name: string }) => f.name), 'label'].sort()
    expect(m.validation).toEqual({ kind: 'fraction', fraction: 0.2, rows: s.rows_valid, key })
    expect(m.params).toMatchObject({ ...SMALL, seed: 3, optimizer: 'adam', embedding_optimizer: 'adagrad' })
    expect(m.features.find((f: { name: string }) => f.name === 'user_id')).toMatchObject({
      type: 'embedding',
      delta_type: 'long',
    })
    expect(m.metrics).toHaveLength(s.rounds)

    // A copy: decodeCheckpoint slices tensors out of bytes.buffer, and a Node Buffer's slice is a view of a shared pool.
    const ck = decodeCheckpoint(new Uint8Array(readFileSync(s.model_path)), s.model_path)
    expect(ck.params).toMatchObject(SMALL)
    expect(ck.loop.step).toBe(s.steps)
    expect(ck.shape).toMatchObject({
      dim: 4,
      layers: [16, 8],
      sparse: m.features.filter((f: { type: string }) => f.type === 'embedding').length,
    })
    expect(ck.state.weights.embeddings.length).toBe(ck.shape.totalRows * 4)
    expect(ck.state.weights.dense.every(t => t.every(Number.isFinite))).toBe(true)
    expect(readdirSync(out).sort()).toEqual(['continue', 'manifest.json', 'metrics.csv', 'model.bin', 'model.onnx'])
    // model.onnx is the export of model.bin (the one export path, models/recsys/export.ts).
    expect(new Uint8Array(readFileSync(join(out, 'model.onnx')))).toEqual(
      (await runExports(readFileSync(s.model_path)))['model.onnx'],
    )
  }, 120_000)
})

describe('snaptrain train --model recsys --valid-table', () => {
  it('evaluates on every row of the second table and pins it in the manifest', async () => {
    const out = join(tmp, 'run-vt')
    const r = await cli([
      'train',
      '--model',
      'recsys',
      '--table',
      SMALL_TABLE,
      '--valid-table',
      SMALL_TABLE,
      '--label',
      'label',
      '--features',
      'user_id,item_id,dense_0',
      '--params',
      JSON.stringify({ ...SMALL, eval_every: 100 }),
      '--out',
      out,
      '--json',
    ])
    expect(r.code).toBe(0)
    const s = JSON.parse(r.out.trim().split('\n').pop()!)
    expect(s.rows_valid).toBe(s.rows_train)
    expect(s).toMatchObject({ rounds: 1, steps: Math.ceil(s.rows_train / 1024) })
    const m = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
    expect(m.validation.kind).toBe('table')
    expect(m.validation.table).toMatchObject({ path: SMALL_TABLE, rows: s.rows_train })
    // Served twice (two loopback ports), the same folder is named and identified alike in both places.
    expect(m.validation.table.url).toBe(`${pathToFileURL(SMALL_TABLE).href}/`)
    expect(m.validation.table).toEqual(m.table)
    expect(m.features.map((f: { name: string }) => f.name)).toEqual(['user_id', 'item_id', 'dense_0'])
    expect(parseMetricsCsv(readFileSync(join(out, 'metrics.csv'), 'utf8'))).toHaveLength(1)
  }, 120_000)
})

describe('snaptrain train --model recsys: bad input', () => {
  const usage: Array<[string, object, RegExp]> = [
    ['unknown parameter', { max_depth: 3 }, /--params: unknown recsys parameter 'max_depth'/],
    ['layers with a 0', { layers: [16, 0] }, /--params: layers must be an array of integers/],
    ['unknown optimizer', { optimizer: 'sgd' }, /--params: optimizer must be one of 'adam', 'adamw', got "sgd"/],
    ['negative lr', { lr: -1 }, /--params: lr must be a finite number > 0, got -1/],
    ['bad buckets', { buckets: { user_id: 0 } }, /--params: buckets\.user_id must be an integer/],
  ]
  for (const [name, params, message] of usage) {
    it(`${name} → exit 2 in < 10 s naming it`, async () => {
      const r = await cli([
        'train',
        '--model',
        'recsys',
        '--table',
        TABLE,
        '--label',
        'label',
        '--params',
        JSON.stringify(params),
        '--out',
        join(tmp, 'bad'),
      ])
      expect(r.err).toMatch(message)
      expect(r.code).toBe(2)
      expect(r.ms).toBeLessThan(10_000)
      expect(existsSync(join(tmp, 'bad'))).toBe(false)
    }, 30_000)
  }

  const data: Array<[string, string[], RegExp, number]> = [
    [
      'missing feature',
      ['--label', 'label', '--features', 'user_id,nope'],
      /feature column 'nope' does not exist/,
      10_000,
    ],
    [
      'buckets of a dense column',
      ['--label', 'label', '--params', '{"buckets":{"dense_0":8}}'],
      /buckets\.dense_0: not an embedding/,
      10_000,
    ],
    ['label not 0/1', ['--label', 'hour'], /label column hour: binary:logistic needs labels 0 or 1/, 10_000],
    [
      'batch too large for the adapter',
      ['--label', 'label', '--params', '{"batch_size":16000000,"layers":[8],"embedding_dim":4}'],
      /batch_size 16000000 needs .* use batch_size ≤ \d+/,
      30_000,
    ],
    [
      'diverging lr',
      ['--label', 'label', '--params', JSON.stringify({ ...SMALL, eval_every: 2, lr: 1e9, embedding_lr: 1e9 })],
      /training diverged: .* lower lr \(lr = 1000000000/,
      30_000,
    ],
  ]
  for (const [name, args, message, ms] of data) {
    it(`${name} → exit 1 naming it`, async () => {
      const r = await cli(['train', '--model', 'recsys', '--table', TABLE, ...args, '--out', join(tmp, 'bad')])
      expect(r.err).toMatch(message)
      expect(r.code).toBe(1)
      expect(r.ms).toBeLessThan(ms)
      expect(existsSync(join(tmp, 'bad'))).toBe(false)
    }, 90_000)
  }

  it('an id column with a null → exit 1 naming the column', async () => {
    const r = await cli([
      'train',
      '--model',
      'recsys',
      '--table',
      NULL_IDS,
      '--label',
      'label',
      '--params',
      '{"batch_size":16,"layers":[4]}',
      '--out',
      join(tmp, 'bad'),
    ])
    expect(r.err).toMatch(/user_id/)
    expect(r.err).toMatch(/null/)
    expect(r.code).toBe(1)
    expect(existsSync(join(tmp, 'bad'))).toBe(false)
  }, 90_000)
})
