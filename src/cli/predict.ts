/**
 * `snaptrain predict --model model.json --table T [--version N] [--out preds.csv] [--json] [--cpu] [--contribs]`:
 * loads an XGBoost model (JSON, or UBJSON when the name ends in .ubj; ours, or one XGBoost saved), reads the table's columns named by
 * the model's feature_names in the page and predicts there (GPU predict kernel; --cpu: the CPU
 * reference predictor), then writes preds.csv: header `margin,prediction`, one line per live
 * table row in table order; --contribs adds SHAP values (XGBoost pred_contribs), one
 * `shap_<feature>` column per model feature then `shap_bias`, computed in the page too (tree_shap
 * kernel; --cpu: the CPU reference). The model is checked in Node before a browser starts.
 */
import { resolve } from 'node:path'
import type { CliIo } from './io.ts'
import { parseCommand, type CommandSpec, type FlagSpec } from './args.ts'
import { pageErrorMessage, pageTable, withAppPage, type Closers, type PageTable } from './page-run.ts'
import { atomicWrite } from './train.ts'
import { ALLOW_ORIGIN_FLAG, allowOrigins, TOKEN_FLAG, tokenHeaders } from './data-flags.ts'
import { forPage } from './governed.ts'
import { csvText } from '../util/csv.ts'
import { readModelFile } from './model-file.ts'
import type { PredictConfig, PredictResult } from '../models/gbdt/predict-run.ts'

const SPEC = {
  name: 'predict',
  summary: 'Predict every row of a Delta table with an XGBoost JSON model (GPU in headless Chromium).',
  flags: {
    model: {
      type: 'string',
      required: true,
      placeholder: 'model.json|model.ubj',
      help: 'XGBoost model (from snaptrain train, or saved by XGBoost): UBJSON when the name ends in .ubj, else JSON',
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
      help: 'output CSV (margin,prediction per row; --contribs adds the SHAP columns)',
    },
    cpu: { type: 'boolean', help: 'predict with the CPU reference predictor instead of the GPU kernel' },
    contribs: {
      type: 'boolean',
      help: 'add SHAP values to the CSV: shap_<feature> per model feature, then shap_bias (rows sum to the margin)',
    },
    timeout: { type: 'number', default: 900, placeholder: 'S', help: 'give up after S seconds (default 900)' },
    json: {
      type: 'boolean',
      help: 'print {rows, out, adapter} (with --contribs also top_features by mean |SHAP|) as one JSON object on the last stdout line',
    },
    ...TOKEN_FLAG,
    ...ALLOW_ORIGIN_FLAG,
  },
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/** Runs `snaptrain predict`; resolves to the exit code (0 ok, 1 error, 2 usage or bad model). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const f = parsed.values
  let model: string
  let origins: string[] | undefined
  try {
    origins = allowOrigins(f)
    model = loadModel(resolve(f.model))
  } catch (e) {
    io.err(`snaptrain predict: ${(e as Error).message}`)
    return 2
  }
  const closers: Closers = []
  let table: PageTable | undefined
  try {
    table = await pageTable(f.table)
    const config: PredictConfig = {
      model,
      table: table.url,
      version: f.version,
      cpu: f.cpu,
      contribs: f.contribs,
      headers: tokenHeaders(f),
      allowOrigins: origins,
      ...(table.access ? { access: table.access } : {}),
    }
    const r = await withAppPage(io, f.timeout, closers, page =>
      page.evaluate<PredictResult>(predictScript(forPage(config, page.url()))),
    )
    const out = resolve(f.out)
    atomicWrite(out, predsCsv(r.margins, r.predictions, contribsOf(r)))
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

/** The model file's contents as JSON text (.ubj read as UBJSON), checked (an XGBoost model we can predict with). */
export function loadModel(path: string): string {
  return readModelFile(path, '--model')
}

/** The page call as source text (see train.ts trainScript). */
export function predictScript(config: PredictConfig): string {
  return `window.snaptrain.predict(${JSON.stringify(config)})`
}

/** SHAP values of a prediction: the model's feature names and [N × (F + 1)] row-major values, bias last. */
export interface Contribs {
  featureNames: readonly string[]
  values: ArrayLike<number>
}

function contribsOf(r: PredictResult): Contribs | undefined {
  return r.contribs && r.featureNames ? { featureNames: r.featureNames, values: r.contribs } : undefined
}

/**
 * preds.csv: `margin,prediction` then one line per row (f32 values, shortest round-trip form);
 * with `contribs`, then `shap_<feature>` per model feature and `shap_bias` (XGBoost's column order).
 */
export function predsCsv(margins: ArrayLike<number>, predictions: ArrayLike<number>, contribs?: Contribs): string {
  const width = contribs ? contribs.featureNames.length + 1 : 0
  const header = ['margin', 'prediction']
  if (contribs) header.push(...contribs.featureNames.map(n => `shap_${n}`), 'shap_bias')
  const records: unknown[][] = [header]
  for (let i = 0; i < margins.length; i++) {
    const row = [f32(margins[i]), f32(predictions[i])]
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
