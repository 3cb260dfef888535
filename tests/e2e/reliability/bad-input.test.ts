/**
 * Every bad input the CLI accepts, in one table, and what it must answer: a non-zero exit code, a
 * message naming the cause (file, column, parameter, flag), no hang (≤ 10 s per case) and nothing
 * written half-way to --out / --cursor-out. Tables are built and damaged in a temp folder per run
 * (bad-tables.ts). Commands run in-process through the CLI's `main` (the same code as
 * bin/snaptrain.js, without tsx start-up per case); a few run as real processes to pin the exit
 * status. Every case fails in Node before a browser would start. Rows the CLI cannot reach
 * without the page (±Inf / NaN feature values) are checked through the library (GBDT run on the
 * CPU backend in Node): NaN is "missing" as in XGBoost, ±Inf is refused naming the column.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { main } from '../../../src/cli/main.ts'
import { leftoverTemps } from '../../../src/cli/out-dir.ts'
import { runCli } from '../../support/cli.ts'
import {
  DAMAGE,
  ROWS,
  SPECS,
  damagedCopy,
  dataFile,
  editCommit0,
  emptyDir,
  frame,
  logCopy,
  parquetWithCodec,
  writeTable,
} from '../../unit/reliability/bad-tables.ts'
import { SWEEP_ROWS, writeSpaces } from '../../unit/reliability/bad-sweep.ts'

const CONFORMANCE = join(import.meta.dirname, '../../conformance')
const tmp = mkdtempSync(join(tmpdir(), 'snaptrain-bad-input-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** Fixture tables by name (paths), filled in beforeAll. */
const T: Record<string, string> = {}
/** Data file of each damaged table, for the message check. */
const F: Record<string, string> = {}

beforeAll(async () => {
  const good = (T.good = join(tmp, 'good'))
  await writeTable(good, frame())
  F.magic = await damagedCopy(good, (T.magic = join(tmp, 'bad-magic')), DAMAGE.magic)
  F.footer = await damagedCopy(good, (T.footer = join(tmp, 'bad-footer-length')), DAMAGE.footerLength)
  F.page = await damagedCopy(good, (T.page = join(tmp, 'bad-page-header')), DAMAGE.pageHeader)
  const identity = (b: Uint8Array): Uint8Array => b
  await writeTable((T.gzip = join(tmp, 'wrong-codec')), frame(), SPECS, parquetWithCodec(frame(), 'GZIP', identity))
  F.gzip = await dataFile(T.gzip)
  await writeTable((T.lzo = join(tmp, 'unsupported-codec')), frame(), SPECS, parquetWithCodec(frame(), 'LZO', identity))
  F.lzo = await dataFile(T.lzo)
  await buildLogCases(good)
  await buildValueCases()
  await writeSpaces(tmp)
}, 30_000)

/** `_delta_log` damage: absent, empty, malformed line, protocol too new, no metaData, a version gap. */
async function buildLogCases(good: string): Promise<void> {
  T.noLog = await logCopy(good, join(tmp, 'no-log'), log => rm(log, { recursive: true }))
  T.emptyLog = await logCopy(good, join(tmp, 'empty-log'), async log => {
    await rm(log, { recursive: true })
    await emptyDir(log)
  })
  T.malformed = await logCopy(good, join(tmp, 'malformed-commit'), log =>
    editCommit0(
      log,
      lines =>
        lines
          .map(l => JSON.stringify(l))
          .join('\n')
          .slice(0, -20) + '\n',
    ),
  )
  T.protocol = await logCopy(good, join(tmp, 'protocol-too-new'), log =>
    editCommit0(log, lines =>
      lines.map(l => (l.protocol ? { protocol: { minReaderVersion: 9, minWriterVersion: 9 } } : l)),
    ),
  )
  T.feature = await logCopy(good, join(tmp, 'reader-feature'), log =>
    editCommit0(log, lines =>
      lines.map(l =>
        l.protocol
          ? {
              protocol: {
                minReaderVersion: 3,
                minWriterVersion: 7,
                readerFeatures: ['futureFeatureX'],
                writerFeatures: ['futureFeatureX'],
              },
            }
          : l,
      ),
    ),
  )
  T.noMeta = await logCopy(good, join(tmp, 'no-metadata'), log =>
    editCommit0(log, lines => lines.filter(l => !l.metaData)),
  )
  T.gap = await logCopy(good, join(tmp, 'version-gap'), async log => {
    const c0 = await readFile(join(log, '00000000000000000000.json'), 'utf8')
    await writeFile(
      join(log, '00000000000000000002.json'),
      c0
        .split('\n')
        .filter(l => l.includes('commitInfo'))
        .join('\n') + '\n',
    )
  })
}

/** Value problems: labels 2, ±Inf, NaN; a file column typed string while the log says double. */
async function buildValueCases(): Promise<void> {
  const labelSpec = (type: 'double' | 'integer') => SPECS.map(s => (s.name === 'label' ? { ...s, type } : s))
  const labels = (at: number, v: number) => Float64Array.from({ length: ROWS }, (_, i) => (i === at ? v : i % 2))
  await writeTable(
    (T.label2 = join(tmp, 'label-2')),
    frame({ label: Int32Array.from({ length: ROWS }, (_, i) => (i === 9 ? 2 : i % 2)) }),
  )
  await writeTable(
    (T.labelInf = join(tmp, 'label-inf')),
    frame({ label: labels(4, Infinity) }, labelSpec('double')),
    labelSpec('double'),
  )
  await writeTable(
    (T.labelNaN = join(tmp, 'label-nan')),
    frame({ label: labels(3, NaN) }, labelSpec('double')),
    labelSpec('double'),
  )
  await writeTable(
    (T.featInf = join(tmp, 'feature-inf')),
    frame({ x: Float64Array.from({ length: ROWS }, (_, i) => (i === 7 ? -Infinity : i)) }),
  )
  await writeTable(
    (T.featNaN = join(tmp, 'feature-nan')),
    frame({ x: Float64Array.from({ length: ROWS }, (_, i) => (i % 5 === 0 ? NaN : i)) }),
  )
  // The file stores z as strings; the log declares z a double.
  const stringZ = SPECS.map(s => (s.name === 'z' ? { ...s, type: 'string' as const, nullable: true } : s))
  const bytes = parquetWithCodec(
    frame({ z: Array.from({ length: ROWS }, (_, i) => `v${i}`) }, stringZ),
    'UNCOMPRESSED',
    b => b,
    stringZ,
  )
  await writeTable((T.typeMismatch = join(tmp, 'type-mismatch')), frame(), SPECS, bytes)
  F.typeMismatch = await dataFile(T.typeMismatch)
}

/** One bad input: the command line (built once fixtures exist) and the message it must print. */
interface Case {
  name: string
  argv: () => string[]
  /** Exit code: 2 for usage errors (flags, parameters), 1 for data errors. */
  code: 1 | 2
  message: RegExp
  /** Text that must also appear (a path that exists only once the fixtures are built). */
  names?: () => string
}

/** `snaptrain train` on `table` with extra flags; --out gets a fresh folder per case. */
const train =
  (table: () => string, ...args: string[]) =>
  (): string[] => ['train', '--table', table(), '--label', 'label', ...args]
const scan =
  (table: () => string, ...args: string[]) =>
  (): string[] => ['scan', '--table', table(), '--json', ...args]
const good = (): string => T.good
const gbdt = (params: Record<string, unknown>) => train(good, '--params', JSON.stringify(params))
const recsys = (params: Record<string, unknown>) => train(good, '--model', 'recsys', '--params', JSON.stringify(params))

const CASES: Case[] = [
  // --- the Delta log ---
  {
    name: 'no _delta_log folder',
    argv: scan(() => T.noLog),
    code: 1,
    message: /not a Delta table|_delta_log/i,
    names: () => T.noLog,
  },
  {
    name: 'empty _delta_log',
    argv: scan(() => T.emptyLog),
    code: 1,
    message: /not a Delta table|_delta_log|no commit/i,
    names: () => T.emptyLog,
  },
  { name: 'malformed commit JSON', argv: scan(() => T.malformed), code: 1, message: /00000000000000000000\.json/ },
  {
    name: 'protocol too new (reader 9)',
    argv: scan(() => T.protocol),
    code: 1,
    message: /reader version 9|minReaderVersion.*9/i,
  },
  { name: 'unsupported reader feature', argv: scan(() => T.feature), code: 1, message: /futureFeatureX/ },
  { name: 'commit without metaData', argv: scan(() => T.noMeta), code: 1, message: /metaData|metadata/ },
  {
    name: 'missing commit (version gap 0 → 2)',
    argv: scan(() => T.gap),
    code: 1,
    message: /version|missing|gap|00000000000000000001/i,
  },
  {
    name: 'conformance: invalid protocol version',
    argv: scan(() => `${CONFORMANCE}/golden/deltalog-invalid-protocol-version`),
    code: 1,
    message: /99|reader version/i,
  },
  {
    name: 'conformance: variant reader feature',
    argv: scan(() => `${CONFORMANCE}/golden/spark-variant-checkpoint`),
    code: 1,
    message: /variantType-preview/,
  },
  { name: 'version that does not exist', argv: scan(good, '--version', '7'), code: 1, message: /version 7/ },
  { name: 'table folder that does not exist', argv: scan(() => join(tmp, 'nope')), code: 2, message: /nope/ },
  // --- corrupt Parquet (scan reads every column; train reads the label, the first column chunk) ---
  {
    name: 'scan: bad magic',
    argv: scan(() => T.magic),
    code: 1,
    message: /magic|parquet|corrupt/i,
    names: () => base(F.magic),
  },
  {
    name: 'scan: bad footer length',
    argv: scan(() => T.footer),
    code: 1,
    message: /footer|metadata|length|corrupt/i,
    names: () => base(F.footer),
  },
  {
    name: 'scan: bad page header',
    argv: scan(() => T.page),
    code: 1,
    message: /page|corrupt|invalid|decode/i,
    names: () => base(F.page),
  },
  {
    name: 'scan: data not in the declared codec (GZIP)',
    argv: scan(() => T.gzip),
    code: 1,
    message: /gzip|codec|decompress|corrupt|invalid/i,
    names: () => base(F.gzip),
  },
  {
    name: 'scan: unsupported codec (LZO)',
    argv: scan(() => T.lzo),
    code: 1,
    message: /LZO|codec/i,
    names: () => base(F.lzo),
  },
  {
    name: 'train: bad magic',
    argv: train(() => T.magic),
    code: 1,
    message: /magic|parquet|corrupt/i,
    names: () => base(F.magic),
  },
  {
    name: 'train: bad page header in the label chunk',
    argv: train(() => T.page),
    code: 1,
    message: /page|corrupt|invalid|decode/i,
    names: () => base(F.page),
  },
  {
    name: 'train: wrong codec',
    argv: train(() => T.gzip),
    code: 1,
    message: /gzip|codec|decompress|corrupt|invalid/i,
    names: () => base(F.gzip),
  },
  // --- schema and values ---
  {
    name: 'file column type ≠ log type (z string vs double)',
    argv: scan(() => T.typeMismatch),
    code: 1,
    message: /\bz\b.*(type|double|string|BYTE_ARRAY)|(type|double|string|BYTE_ARRAY).*\bz\b/i,
    names: () => base(F.typeMismatch),
  },
  {
    name: 'label 2 for binary:logistic',
    argv: train(() => T.label2),
    code: 1,
    message: /label column label: binary:logistic needs labels 0 or 1, got 2/,
  },
  {
    name: 'label +Inf for binary:logistic',
    argv: train(() => T.labelInf),
    code: 1,
    message: /label column label: .*got Infinity/,
  },
  {
    name: 'label +Inf for reg:squarederror',
    argv: train(() => T.labelInf, '--params', '{"objective":"reg:squarederror"}'),
    code: 1,
    message: /label column label: reg:squarederror needs finite labels, got Infinity/,
  },
  { name: 'label NaN', argv: train(() => T.labelNaN), code: 1, message: /label column label: null at .*row 3/ },
  {
    name: 'label 2 (recsys)',
    argv: train(() => T.label2, '--model', 'recsys'),
    code: 1,
    message: /label column label: .*0 or 1, got 2/,
  },
  {
    name: 'label column missing',
    argv: () => ['train', '--table', T.good, '--label', 'nope'],
    code: 1,
    message: /label column nope: not in the table/,
  },
  { name: 'feature column missing', argv: train(good, '--features', 'x,nope'), code: 1, message: /nope/ },
  {
    name: 'recsys: feature column missing',
    argv: train(good, '--model', 'recsys', '--features', 'x,nope'),
    code: 1,
    message: /nope/,
  },
  // --- filters ---
  { name: 'filter syntax error', argv: train(good, '--filter', 'x >'), code: 1, message: /filter|expected/i },
  { name: 'filter on an unknown column', argv: train(good, '--filter', 'nope > 1'), code: 1, message: /nope/ },
  {
    name: 'filter comparing a string column with a number',
    argv: train(good, '--filter', "cat > 'a' AND x = 'y'"),
    code: 1,
    message: /\bx\b|type|compare/i,
  },
  {
    name: 'filter selecting no rows',
    argv: train(good, '--filter', 'x > 100'),
    code: 1,
    message: /filter "x > 100" selects no rows/,
  },
  {
    name: 'scan filter syntax error',
    argv: scan(good, '--filter', 'x >> 1'),
    code: 2,
    message: /filter|expected|unexpected/i,
  },
  // --- flags ---
  { name: 'unknown flag', argv: train(good, '--nope'), code: 2, message: /unknown flag '--nope'/ },
  { name: '--table missing', argv: () => ['train', '--label', 'label'], code: 2, message: /--table: required/ },
  { name: '--label missing', argv: () => ['train', '--table', T.good], code: 2, message: /--label: required/ },
  {
    name: '--model unknown',
    argv: train(good, '--model', 'svm'),
    code: 2,
    message: /--model: expected one of gbdt, recsys, gblinear, got 'svm'/,
  },
  {
    name: '--params not JSON',
    argv: train(good, '--params', '{max_depth:3}'),
    code: 2,
    message: /--params: not valid JSON/,
  },
  {
    name: '--params an array',
    argv: train(good, '--params', '[1]'),
    code: 2,
    message: /--params: must be a JSON object/,
  },
  {
    name: '--valid-fraction 1.5',
    argv: train(good, '--valid-fraction', '1.5'),
    code: 2,
    message: /--valid-fraction: must be in \[0, 1\) \(0: none\), got 1.5/,
  },
  {
    name: '--valid-fraction and --valid-table',
    argv: train(good, '--valid-fraction', '0.2', '--valid-table', 'x'),
    code: 2,
    message: /--valid-table and --valid-fraction/,
  },
  {
    name: '--valid-version without --valid-table',
    argv: train(good, '--valid-version', '0'),
    code: 2,
    message: /--valid-version: needs --valid-table/,
  },
  {
    name: '--version -1',
    argv: train(good, '--version', '-1'),
    code: 2,
    message: /--version: expected a non-negative integer, got '-1'/,
  },
  { name: '--workers 1.5', argv: train(good, '--workers', '1.5'), code: 2, message: /--workers/ },
  {
    name: '--timeout abc',
    argv: train(good, '--timeout', 'abc'),
    code: 2,
    message: /--timeout: expected a number, got 'abc'/,
  },
  {
    name: 'validation table that does not exist',
    argv: train(good, '--valid-table', join(tmp, 'no-such-valid')),
    code: 1,
    message: /--valid-table.*no-such-valid|no-such-valid/,
  },
  {
    name: '--cursor-out in a folder that does not exist',
    argv: scan(good, '--seed', '1', '--cursor-out', join(tmp, 'no-dir', 'c.json')),
    code: 1,
    message: /no-dir\/c\.json/,
  },
  // --- GBDT parameters: unknown name, wrong type, out of range (each names the parameter) ---
  {
    name: 'gbdt: unknown parameter (typo)',
    argv: gbdt({ max_dept: 3 }),
    code: 2,
    message: /unknown parameter max_dept \(did you mean max_depth\?\)/,
  },
  {
    name: 'gbdt: parameter given twice via alias',
    argv: gbdt({ eta: 0.1, learning_rate: 0.2 }),
    code: 2,
    message: /learning_rate: given twice/,
  },
  {
    name: 'gbdt: max_depth as text',
    argv: gbdt({ max_depth: 'deep' }),
    code: 2,
    message: /max_depth: must be an integer in \[0, 16\], got "deep"/,
  },
  { name: 'gbdt: max_depth 2.5', argv: gbdt({ max_depth: 2.5 }), code: 2, message: /max_depth: must be an integer/ },
  {
    name: 'gbdt: objective unknown',
    argv: gbdt({ objective: 'survival:cox' }),
    code: 2,
    message: /objective: must be one of .*got "survival:cox"/,
  },
  {
    name: 'gbdt: eval_metric unknown',
    argv: gbdt({ eval_metric: ['auc', 'gauc'] }),
    code: 2,
    message: /eval_metric: must be one of .*got "gauc"/,
  },
  {
    name: 'gbdt: eval_metric mlogloss without a multi:* objective',
    argv: gbdt({ eval_metric: ['auc', 'mlogloss'] }),
    code: 2,
    message: /eval_metric: mlogloss scores the class probabilities of multi:softprob or multi:softmax/,
  },
  {
    name: 'gbdt: eval_metric map without --qid',
    argv: gbdt({ eval_metric: ['auc', 'map'] }),
    code: 1,
    message: /eval_metric: map scores rows within their query groups: name the query id column \(--qid COL\)/,
  },
  {
    name: 'gbdt: grow_policy unknown',
    argv: gbdt({ grow_policy: 'wide' }),
    code: 2,
    message: /grow_policy: must be one of depthwise, lossguide/,
  },
  {
    name: 'gbdt: max_leaves 1',
    argv: gbdt({ max_leaves: 1 }),
    code: 2,
    message: /max_leaves: must be 0 \(unlimited\) or ≥ 2/,
  },
  {
    name: 'gbdt: base_score 1 for logistic',
    argv: gbdt({ base_score: 1 }),
    code: 2,
    message: /base_score: must be in \(0, 1\)/,
  },
  {
    name: 'gbdt: early stopping without validation',
    argv: train(good, '--valid-fraction', '0', '--params', JSON.stringify({ early_stopping_rounds: 3 })),
    code: 2,
    message: /early_stopping_rounds: needs a validation set/,
  },
  ...outOfRange('gbdt', {
    num_round: 0,
    eta: 0,
    max_depth: 17,
    min_child_weight: -1,
    lambda: -1,
    alpha: -0.5,
    gamma: -1,
    subsample: 0,
    colsample_bytree: 1.5,
    colsample_bylevel: 0,
    colsample_bynode: 2,
    max_bin: 1000,
    scale_pos_weight: 0,
    seed: 2 ** 33,
    early_stopping_rounds: 0,
    max_leaves: -1,
    max_delta_step: -1,
    base_score: null,
  }),
  // --- recommender parameters ---
  {
    name: 'recsys: unknown parameter',
    argv: recsys({ max_depth: 3 }),
    code: 2,
    message: /unknown recsys parameter 'max_depth'/,
  },
  {
    name: 'recsys: gauc group column missing',
    argv: recsys({ gauc_group: 'nope', early_stopping_metric: 'gauc' }),
    code: 1,
    message: /gauc_group: column 'nope' does not exist/,
  },
  {
    name: 'recsys: gauc early stopping without a group column',
    argv: recsys({ early_stopping_metric: 'gauc' }),
    code: 2,
    message: /early_stopping_metric 'gauc' needs gauc_group/,
  },
  {
    name: 'recsys: layers not an array',
    argv: recsys({ layers: 64 }),
    code: 2,
    message: /layers must be an array of integers/,
  },
  {
    name: 'recsys: layers with a 0',
    argv: recsys({ layers: [64, 0] }),
    code: 2,
    message: /layers must be an array of integers in \[1, 65536\]/,
  },
  {
    name: 'recsys: optimizer unknown',
    argv: recsys({ optimizer: 'sgd' }),
    code: 2,
    message: /optimizer must be one of 'adam', 'adamw', got "sgd"/,
  },
  {
    name: 'recsys: embedding_optimizer unknown',
    argv: recsys({ embedding_optimizer: 'sgd' }),
    code: 2,
    message: /embedding_optimizer must be one of/,
  },
  {
    name: 'recsys: schedule unknown',
    argv: recsys({ schedule: 'linear' }),
    code: 2,
    message: /schedule must be one of/,
  },
  {
    name: 'recsys: weight_decay without adamw',
    argv: recsys({ weight_decay: 0.1 }),
    code: 2,
    message: /weight_decay 0.1 needs optimizer 'adamw'/,
  },
  {
    name: 'recsys: restore_best not boolean',
    argv: recsys({ restore_best: 'yes' }),
    code: 2,
    message: /restore_best must be true or false/,
  },
  {
    name: 'recsys: buckets 0',
    argv: recsys({ buckets: 0 }),
    code: 2,
    message: /buckets must be an integer in \[1, 2\^31\]/,
  },
  {
    name: 'recsys: buckets of a dense column',
    argv: recsys({ buckets: { x: 10 } }),
    code: 1,
    message: /buckets\.x: not an embedding/,
  },
  {
    name: 'recsys: log1p of a string column',
    argv: recsys({ log1p: ['cat'] }),
    code: 1,
    message: /log1p: 'cat' is not a dense feature column/,
  },
  {
    name: 'recsys: log1p not a list',
    argv: recsys({ log1p: 'x' }),
    code: 2,
    message: /log1p must be an array of column names/,
  },
  ...outOfRange('recsys', {
    epochs: 0,
    batch_size: 0,
    embedding_dim: 2000,
    warmup_steps: -1,
    seed: -1,
    eval_every: 0,
    early_stopping_rounds: -1,
    lr: 0,
    embedding_lr: -1,
    weight_decay: -1,
  }),
  // --- predict ---
  {
    name: 'predict: model file missing',
    argv: () => ['predict', '--model', join(tmp, 'nope.json'), '--table', T.good],
    code: 2,
    message: /--model .*nope\.json: no such file/,
  },
  {
    name: 'predict: model not JSON',
    argv: () => ['predict', '--model', join(T.good, '_delta_log', '00000000000000000000.json'), '--table', T.good],
    code: 2,
    message: /--model .*00000000000000000000\.json/,
  },
  {
    name: 'predict: JSON that is not a model',
    argv: () => ['predict', '--model', CURSOR(), '--table', T.good],
    code: 2,
    message: /--model .*cursor-good\.json/,
  },
  // --- export ---
  {
    name: 'export: model file missing',
    argv: () => ['export', '--model', join(tmp, 'nope.bin'), '--format', 'onnx'],
    code: 2,
    message: /--model .*nope\.bin: no such file/,
  },
  {
    name: 'export: a GBDT model',
    argv: () => ['export', '--model', MODEL_PATH(), '--format', 'safetensors'],
    code: 2,
    message: /--model .*model\.json: a GBDT \(XGBoost\) model; export takes a recommender model\.bin/,
  },
  {
    name: 'export: a file that is no model',
    argv: () => ['export', '--model', join(T.good, '_delta_log', '00000000000000000000.json'), '--format', 'onnx'],
    code: 2,
    message: /--model .*00000000000000000000\.json: not a recommender model file/,
  },
  {
    name: 'export: unknown format',
    argv: () => ['export', '--model', MODEL_PATH(), '--format', 'pt'],
    code: 2,
    message: /--format: expected one of onnx, safetensors, got 'pt'/,
  },
  // --- cursors ---
  {
    name: 'scan --resume with a cursor of another table',
    argv: () => ['scan', '--table', T.featNaN, '--resume', CURSOR(), '--format', 'ids'],
    code: 1,
    message: /cursor|digest|table|another/i,
    names: () => 'cursor',
  },
  {
    name: 'scan --resume with a cursor of another version',
    argv: () => ['scan', '--table', T.gap === '' ? '' : T.good, '--resume', CURSOR_V(), '--format', 'ids'],
    code: 1,
    message: /version/i,
  },
  {
    name: 'scan --resume with a file that is not a cursor',
    argv: () => ['scan', '--table', T.good, '--resume', join(T.good, '_delta_log', '00000000000000000000.json')],
    code: 1,
    message: /00000000000000000000\.json/,
  },
  // --- sweeps: the gauc metric's group column ---
  {
    name: 'sweep: gauc without a group column',
    argv: () => ['sweep', '--table', T.good, '--label', 'label', '--model', 'recsys', '--metric', 'gauc'],
    code: 2,
    message: /metric 'gauc' needs a gauc_group column/,
  },
  {
    name: 'sweep: gauc group column missing',
    argv: () => {
      const space = join(tmp, 'space-gauc.json')
      writeFileSync(space, JSON.stringify({ gauc_group: 'nope', lr: { type: 'loguniform', low: 1e-3, high: 1e-2 } }))
      return ['sweep', '--table', T.good, '--label', 'label', '--model', 'recsys', '--metric', 'gauc', '--space', space]
    },
    code: 1,
    message: /gauc_group: column 'nope' does not exist/,
  },
  // --- sweeps: search spaces and strategy knobs (bad-sweep.ts) ---
  ...SWEEP_ROWS.map(r => ({
    name: r.name,
    argv: () => ['sweep', '--table', T.good, '--label', 'label', '--model', 'gbdt', ...r.args(tmp)],
    code: 2 as const,
    message: r.message,
  })),
]

/** An out-of-range row per parameter: `name → value` (null for "not a number"). */
function outOfRange(family: 'gbdt' | 'recsys', values: Record<string, unknown>): Case[] {
  return Object.entries(values).map(([name, value]) => ({
    name: `${family}: ${name} = ${JSON.stringify(value)}`,
    argv: family === 'gbdt' ? gbdt({ [name]: value }) : recsys({ [name]: value }),
    code: 2 as const,
    message: new RegExp(`--params: ${name}:? must be`),
  }))
}

function base(path: string): string {
  return path.split('/').pop()!
}

/** A minimal XGBoost JSON model over x (for predict), and cursors of the good table at other snapshots. */
const MODEL_PATH = (): string => join(tmp, 'model.json')
const CURSOR = (): string => join(tmp, 'cursor-good.json')
const CURSOR_V = (): string => join(tmp, 'cursor-v1.json')

beforeAll(async () => {
  const { toXGBoostJsonString } = await import('../../../src/models/gbdt/xgboost-json.ts')
  const { train } = await import('../../../src/models/gbdt/driver.ts')
  const { parseParams } = await import('../../../src/models/gbdt/params.ts')
  const f = frame()
  const booster = await train(
    {
      columns: [Float32Array.from(f.columns.x as Float64Array)],
      labels: Float32Array.from(f.columns.label as Int32Array),
      featureNames: ['x'],
    },
    parseParams({ num_round: 1, max_depth: 2 }),
  )
  await writeFile(MODEL_PATH(), toXGBoostJsonString(booster))
  const io = { out: () => {}, err: () => {} }
  const cut = ['--seed', '1', '--stop-after', '5', '--format', 'ids']
  expect(await main(['scan', '--table', T.good, ...cut, '--cursor-out', CURSOR()], io)).toBe(0)
  // A cursor whose version (1) the good table does not have: made on a copy with a second commit.
  const v1 = await logCopy(T.good, join(tmp, 'two-versions'), async log => {
    const c0 = await readFile(join(log, '00000000000000000000.json'), 'utf8')
    await writeFile(
      join(log, '00000000000000000001.json'),
      c0
        .split('\n')
        .filter(l => l.includes('commitInfo'))
        .join('\n') + '\n',
    )
  })
  expect(await main(['scan', '--table', v1, ...cut, '--cursor-out', CURSOR_V()], io)).toBe(0)
  // The cursor names the table it was made on; point the v1 cursor at the good table's URL form.
  const c = JSON.parse(await readFile(CURSOR_V(), 'utf8')) as Record<string, unknown>
  const g = JSON.parse(await readFile(CURSOR(), 'utf8')) as Record<string, unknown>
  await writeFile(CURSOR_V(), JSON.stringify({ ...c, table: g.table }))
}, 30_000)

/** Runs one case in-process; returns exit code and stderr. */
async function runCase(argv: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = []
  const code = await main(argv, {
    out: () => {},
    err: line => {
      err.push(line)
    },
  })
  return { code, err: err.join('\n') }
}

/** Output paths a case may write: --out DIR (train, sweep), --out FILE (predict, export). */
function outputs(argv: string[], i: number): string[] {
  const dir = join(tmp, 'out', String(i))
  if (argv[0] === 'train' || argv[0] === 'sweep') argv.push('--out', dir)
  if (argv[0] === 'predict') argv.push('--out', `${dir}.csv`)
  if (argv[0] === 'export') argv.push('--out', `${dir}.json`)
  return [dir, `${dir}.csv`, `${dir}.json`]
}

describe('bad input, collected: non-zero exit, a message naming the cause, nothing written', () => {
  CASES.forEach((c, i) => {
    it(c.name, async () => {
      const argv = c.argv()
      const outs = outputs(argv, i)
      const r = await runCase(argv)
      expect(r.err, `argv: ${argv.join(' ')}`).toMatch(c.message)
      if (c.names) expect(r.err).toContain(c.names())
      expect(r.code).toBe(c.code)
      for (const o of outs) {
        expect(existsSync(o), `${o} written by a failed run`).toBe(false)
        expect(leftoverTemps(o)).toEqual([])
      }
    }, 10_000)
  })

  it('no case leaves temp files anywhere under the output root', () => {
    const root = join(tmp, 'out')
    expect(existsSync(root) ? readdirSync(root) : []).toEqual([])
  })
})

describe('the process contract (bin/snaptrain.js): exit status and one stderr line naming the cause', () => {
  const picked = ['label 2 for binary:logistic', 'gbdt: unknown parameter (typo)', 'scan: bad page header']
  for (const name of picked) {
    it(name, async () => {
      const c = CASES.find(x => x.name === name)!
      const r = await runCli(c.argv(), {}, 10_000)
      expect(r.stderr).toMatch(c.message)
      expect(r.code).toBe(c.code)
    }, 15_000)
  }
})

describe('values only the page reads (library, GBDT on the CPU backend in Node)', () => {
  it('NaN feature values are missing values (XGBoost semantics): training succeeds', async () => {
    const r = await trainLibrary(T.featNaN)
    expect(r.summary.rounds).toBe(2)
    const model = JSON.parse(r.model) as {
      learner: { gradient_booster: { model: { trees: { default_left: number[] }[] } } }
    }
    expect(model.learner.gradient_booster.model.trees.length).toBe(2)
  }, 10_000)

  it('±Inf feature values are refused naming the column, the file and the row', async () => {
    await expect(trainLibrary(T.featInf)).rejects.toThrow(/feature column x: -Infinity at training row 7/)
  }, 10_000)
})

/** GBDT through runTraining (the page's entry point) on the CPU backend, table served on loopback. */
async function trainLibrary(table: string): Promise<import('../../../src/run/config.ts').RunResult<string>> {
  const { serveDirectory } = await import('../../../src/serve/server.ts')
  const { runTraining } = await import('../../../src/run/pipeline.ts')
  const server = await serveDirectory(table)
  try {
    return await runTraining({
      table: server.url,
      label: 'label',
      features: ['x', 'z'],
      params: { num_round: 2, max_depth: 2 },
      backend: 'cpu',
      workers: 0,
    })
  } finally {
    await server.close()
  }
}
