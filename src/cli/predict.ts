/**
 * `snaptrain predict --model model.json --table T [--version N] [--out preds.csv] [--json] [--cpu] [--contribs]`:
 * loads an XGBoost model (JSON, or UBJSON when the name ends in .ubj; ours, or one XGBoost saved), reads the table's columns named by
 * the model's feature_names in the page and predicts there (GPU predict kernel; --cpu: the CPU
 * reference predictor), then writes preds.csv: header `margin,prediction`, one line per live
 * table row in table order (a multiclass model of K classes: `margin_0…margin_{K−1}`,
 * `prob_0…prob_{K−1}`, `prediction` = the class, as the label's own value when the model has its
 * dictionary); --contribs adds SHAP values (XGBoost pred_contribs), one `shap_<feature>` column
 * per model feature then `shap_bias` (multiclass: those of class 0 suffixed `_0`, then class 1's, …:
 * XGBoost's (N, K, F + 1) order), computed in the page too (tree_shap kernel; --cpu: the CPU
 * reference). A recommender's model.bin (told by its checkpoint magic, not
 * its name) goes the same way: the page scores the rows with training's featurize and forward
 * pass (GPU model; --cpu: the reference model), `logit,prediction` per row. The model is checked
 * in Node before a browser starts.
 */
import { resolve } from 'node:path'
import type { CliIo } from './io.ts'
import { parseCommand, type CommandSpec, type FlagSpec } from './args.ts'
import {
  configurePageCache,
  pageErrorMessage,
  pageTable,
  withAppPage,
  type Closers,
  type PageTable,
} from './page-run.ts'
import { atomicWrite } from './train.ts'
import {
  ALLOW_ORIGIN_FLAG,
  allowOrigins,
  applyCacheFlags,
  CACHE_FLAGS,
  INSECURE_HTTP_FLAG,
  insecureHttp,
  networkOptions,
  TOKEN_FLAG,
  tokenHeaders,
} from './data-flags.ts'
import { forPage } from './governed.ts'
import { csvText } from '../util/csv.ts'
import { readModelFile } from './model-file.ts'
import { readFileSync } from 'node:fs'
import { FAMILIES, familyOfModel } from '../models/registry.ts'
import {
  checkRecsysModel,
  isRecsysModel,
  type PredictConfig,
  type PredictProgress,
  type PredictResult,
} from '../models/predict.ts'
import { progress, type Progress } from './progress.ts'

const SPEC = {
  name: 'predict',
  summary:
    'Predict every row of a Delta table with an XGBoost model or a recommender model.bin (GPU in headless Chromium).',
  flags: {
    model: {
      type: 'string',
      required: true,
      placeholder: 'model.json|model.ubj|model.bin',
      help: 'XGBoost model (from snaptrain train, or saved by XGBoost): UBJSON when the name ends in .ubj, else JSON; or a recommender model.bin (snaptrain train --model recsys), told by its header',
    },
    table: {
      type: 'string',
      required: true,
      placeholder: 'dir|url',
      help: 'table to predict: a local folder or an http(s) URL',
    },
    version: { type: 'int', min: 0, placeholder: 'N', help: 'table version (default: latest)' },
    out: {
      type: 'string',
      default: 'preds.csv',
      placeholder: 'preds.csv',
      help: "output CSV, one line per row: GBDT margin,prediction (multiclass: margin_<k>, prob_<k> per class, then prediction, the class's label value; --contribs adds the SHAP columns); recommender logit,prediction (its output layer's value is a logit, σ⁻¹ of the click probability, not XGBoost's summed-trees margin)",
    },
    cpu: {
      type: 'boolean',
      help: 'predict with the CPU reference predictor (recommender: the reference model) instead of the GPU',
    },
    'base-margin': {
      type: 'string',
      placeholder: 'COL',
      help: "GBDT only: base margin column (XGBoost's DMatrix base_margin): each row's margin starts there instead of at the model's base_score",
    },
    contribs: {
      type: 'boolean',
      help: 'GBDT only: add SHAP values to the CSV: shap_<feature> per model feature, then shap_bias (rows sum to the margin)',
    },
    timeout: { type: 'number', default: 900, placeholder: 'S', help: 'give up after S seconds (default 900)' },
    json: {
      type: 'boolean',
      help: 'print {rows, out, adapter} (with --contribs also top_features by mean |SHAP|) as one JSON object on the last stdout line',
    },
    ...CACHE_FLAGS,
    ...TOKEN_FLAG,
    ...ALLOW_ORIGIN_FLAG,
    ...INSECURE_HTTP_FLAG,
  },
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/** Runs `snaptrain predict`; resolves to the exit code (0 ok, 1 error, 2 usage or bad model). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const f = parsed.values
  let model: string | Uint8Array<ArrayBuffer>
  let origins: string[] | undefined
  let cache: ReturnType<typeof applyCacheFlags>
  try {
    origins = allowOrigins(f)
    cache = applyCacheFlags(f)
    model = loadModel(resolve(f.model), f.contribs === true)
    const family = familyOfModel(model)
    if (f['base-margin'] !== undefined && !family.cliFlags.includes('base-margin'))
      throw new Error(`--base-margin: only for GBDT models; --model is a ${family.label} model`)
  } catch (e) {
    io.err(`snaptrain predict: ${(e as Error).message}`)
    return 2
  }
  const closers: Closers = []
  let table: PageTable | undefined
  try {
    table = await pageTable(f.table, '--table', process.cwd(), networkOptions(f))
    const config: PredictConfig = {
      model,
      table: table.url,
      version: f.version,
      cpu: f.cpu,
      contribs: f.contribs,
      ...(f['base-margin'] !== undefined ? { baseMargin: f['base-margin'] } : {}),
      headers: tokenHeaders(f),
      allowOrigins: origins,
      ...(f['allow-insecure-http'] ? { http: insecureHttp(f) } : {}),
      ...(table.access ? { access: table.access } : {}),
    }
    const shown = predictProgress(progress(io))
    const r = await withAppPage(
      io,
      f.timeout,
      closers,
      async page => {
        await configurePageCache(page, cache)
        return page.evaluate<PredictResult>(predictScript(forPage(config, page.url())))
      },
      shown,
    ).finally(() => shown.end())
    const out = resolve(f.out)
    atomicWrite(
      out,
      predsCsv(r.margins, r.predictions, contribsOf(r), isRecsysModel(model) ? 'logit' : 'margin', classOutputsOf(r)),
    )
    io.err(`predict: ${r.rows} rows of version ${r.version} on ${r.adapter}; wrote ${out}`)
    if (f.json) io.out(JSON.stringify(predictSummary(r, out)))
    return 0
  } catch (e) {
    io.err(`snaptrain predict: ${table ? table.localize(pageErrorMessage(e)) : pageErrorMessage(e)}`)
    return 1
  } finally {
    await table?.close()
  }
}

/**
 * The model file's contents, checked: a recommender's model.bin (checkpoint magic) as its bytes,
 * decoded once here so a corrupt or truncated file fails naming it; another text family's model
 * (the registry's familyOfModel: a gblinear model.json) as its text; else an XGBoost tree model as
 * JSON text (.ubj read as UBJSON). `contribs` with a recommender is a usage error.
 */
export function loadModel(path: string, contribs = false): string | Uint8Array<ArrayBuffer> {
  let bytes: Uint8Array<ArrayBuffer> | undefined
  try {
    bytes = new Uint8Array(readFileSync(path))
  } catch {
    // readModelFile says why (no such file, …)
  }
  const family = bytes && familyOfModel(bytes)
  // The catch-all family's files (XGBoost tree models, JSON or UBJSON) are read and checked here;
  // another text family's model goes to the page as its text, and its predictor checks it in full.
  if (!bytes || !family || family === FAMILIES[FAMILIES.length - 1]) return readModelFile(path, '--model')
  if (family.textModel) return new TextDecoder().decode(bytes)
  if (contribs) throw new Error('--contribs: SHAP values are for GBDT models; --model is a recommender model.bin')
  checkRecsysModel(bytes, `--model ${path}`)
  return bytes
}

/**
 * The page call as source text (see train.ts trainScript); a binary model travels as base64,
 * turned back into bytes in the page.
 */
export function predictScript(config: PredictConfig): string {
  const progress = 'p => window.__snaptrainProgress(JSON.stringify(p))'
  if (typeof config.model === 'string') return `window.snaptrain.predict(${JSON.stringify(config)}, ${progress})`
  const b64 = Buffer.from(config.model.buffer, config.model.byteOffset, config.model.byteLength).toString('base64')
  const rest = JSON.stringify({ ...config, model: undefined })
  return `window.snaptrain.predict({ ...${rest}, model: Uint8Array.from(atob(${JSON.stringify(b64)}), c => c.charCodeAt(0)) }, ${progress})`
}

/** Rows-scored lines piped at most this often (the first and the last always). */
const PREDICT_LINE_MS = 1000

/**
 * The page's prediction progress (PredictProgress JSON) on `shown`: each stage, then
 * "predict: 12000 / 45000 rows" — on a terminal one updating line, piped a line at most once a
 * second (`now`: injectable for tests). `end` closes it.
 */
export function predictProgress(
  shown: Progress,
  now: () => number = () => performance.now(),
): ((json: string) => void) & { end: () => void } {
  let last = Number.NEGATIVE_INFINITY
  let stage = ''
  const on = (json: string) => {
    const p = JSON.parse(json) as PredictProgress
    if (p.done === undefined || p.total === undefined) {
      shown.stage(`predict: ${p.message}`)
      return
    }
    if (p.message !== stage) {
      stage = p.message
      shown.line(`predict: ${p.message}`)
    }
    const t = now()
    const edge = p.done === 0 || p.done >= p.total
    const text = `predict: ${p.done} / ${p.total} rows`
    shown.step(p.done, p.total, text, edge || t - last >= PREDICT_LINE_MS ? text : undefined)
    if (edge || t - last >= PREDICT_LINE_MS) last = t
  }
  return Object.assign(on, { end: () => shown.end() })
}

/** SHAP values of a prediction: the model's feature names and [N × (F + 1)] row-major values, bias last. */
export interface Contribs {
  featureNames: readonly string[]
  values: ArrayLike<number>
}

function contribsOf(r: PredictResult): Contribs | undefined {
  return r.contribs && r.featureNames ? { featureNames: r.featureNames, values: r.contribs } : undefined
}

/** A multiclass prediction's K, probabilities (N × K row-major) and the label value of each class (when known). */
export interface ClassOutputs {
  classes: number
  probabilities: ArrayLike<number>
  labelValues?: ReadonlyArray<string | number>
}

function classOutputsOf(r: PredictResult): ClassOutputs | undefined {
  return r.classes !== undefined && r.probabilities
    ? { classes: r.classes, probabilities: r.probabilities, labelValues: r.labelValues }
    : undefined
}

/**
 * preds.csv: `margin,prediction` (a recommender: `logit,prediction`) then one line per row (f32
 * values, shortest round-trip form); with `classes` (a multiclass model: margins N × K),
 * `margin_<k>` and `prob_<k>` for k = 0…K−1, then `prediction`: the class, as its label value when
 * the model has them. With `contribs`, then `shap_<feature>` per model feature and `shap_bias`
 * (XGBoost's column order); multiclass: those columns per class suffixed `_<k>`, class by class
 * (XGBoost's (N, K, F + 1) flattened).
 */
export function predsCsv(
  margins: ArrayLike<number>,
  predictions: ArrayLike<number>,
  contribs?: Contribs,
  marginName: 'margin' | 'logit' = 'margin',
  classes?: ClassOutputs,
): string {
  const K = classes?.classes ?? 1
  const width = contribs ? K * (contribs.featureNames.length + 1) : 0
  const suffix = (k: number): string => (classes ? `_${k}` : '')
  const header = classes
    ? [
        ...Array.from({ length: K }, (_, k) => `${marginName}_${k}`),
        ...Array.from({ length: K }, (_, k) => `prob_${k}`),
        'prediction',
      ]
    : [marginName, 'prediction']
  if (contribs)
    for (let k = 0; k < K; k++)
      header.push(...contribs.featureNames.map(n => `shap_${n}${suffix(k)}`), `shap_bias${suffix(k)}`)
  const records: unknown[][] = [header]
  const rows = margins.length / K
  for (let i = 0; i < rows; i++) {
    const row: unknown[] = []
    if (classes) {
      for (let k = 0; k < K; k++) row.push(f32(margins[i * K + k]))
      for (let k = 0; k < K; k++) row.push(f32(classes.probabilities[i * K + k]))
      const c = predictions[i]
      row.push(classes.labelValues ? String(classes.labelValues[c]) : String(c))
    } else row.push(f32(margins[i]), f32(predictions[i]))
    for (let j = 0; j < width; j++) row.push(f32(contribs!.values[i * width + j]))
    records.push(row)
  }
  return csvText(records)
}

/** The `--json` line: rows, out, adapter; with contributions also `top_features` (mean |SHAP|, 10 at most). */
export function predictSummary(r: PredictResult, out: string): Record<string, unknown> {
  return {
    rows: r.rows,
    out,
    adapter: r.adapter,
    ...(r.topFeatures ? { top_features: r.topFeatures } : {}),
  }
}

function f32(x: number): string {
  const f = Math.fround(x)
  for (let p = 6; p < 10; p++) {
    const s = Number(f.toPrecision(p))
    if (Math.fround(s) === f) return String(s)
  }
  return String(f)
}
