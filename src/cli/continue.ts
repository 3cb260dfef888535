/**
 * `snaptrain continue --run DIR [--out DIR2] [--engine dask|spark|torch|all] [--json]`: writes the
 * continue bundle (src/continue/bundle.ts) of an existing output folder, in Node, no browser: a
 * `snaptrain train` folder (manifest.json + model.json, model.ubj or model.bin) or a `snaptrain
 * sweep` folder (sweep.json + the best trial's model and manifest.json; the bundle names the sweep
 * and trial). The same bytes train and sweep write into DIR/continue/; DIR2 (default DIR/continue)
 * gets the files as one group (temp names + rename). A missing or unreadable input is a usage
 * error (exit 2) naming the flag and the file.
 */
import { existsSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { CliIo } from './io.ts'
import { parseCommand, type CommandSpec, type FlagSpec } from './args.ts'
import { writeOutputs } from './out-dir.ts'
import { CONTINUE_DIR, continueBundle, type BundleInput, type ContinueEngine } from '../continue/bundle.ts'
import { sweepBundleInput } from '../continue/sweep-bundle.ts'
import type { RunManifest } from '../run/manifest.ts'
import { importSweep } from '../tune/export.ts'
import { FAMILY_NAMES, familyOf } from '../models/registry.ts'

const SPEC = {
  name: 'continue',
  summary:
    'Write the continue bundle of a train or sweep output folder: continue.json, the model and jobs for XGBoost on Dask/Spark or PyTorch DDP.',
  flags: {
    run: {
      type: 'string',
      required: true,
      placeholder: 'DIR',
      help: 'a snaptrain train folder (manifest.json + model file) or a snaptrain sweep folder (sweep.json + the best model)',
    },
    out: { type: 'string', placeholder: 'DIR2', help: 'the bundle folder to write (default DIR/continue)' },
    engine: {
      type: 'string',
      choices: ['dask', 'spark', 'torch', 'all'],
      default: 'all',
      placeholder: 'dask|spark|torch|all',
      help: "which jobs to write: dask (xgboost_dask.py), spark (xgboost_spark.py), torch (torch_ddp.py), all of the model's (default)",
    },
    json: {
      type: 'boolean',
      help: 'print {out, family, source, jobs, files} as one JSON object on the last stdout line',
    },
  },
  notes: `examples:
  snaptrain continue --run runs/marketing
  snaptrain continue --run runs/sweep1 --engine dask --out /shared/jobs/marketing

The bundle: continue.json (pinned table, label, features in the model's order with their
encodings, validation split, params, seed, rounds or steps done), snaptrain_continue.py (shard
reader, hashes, split, encodings), the model (gbdt: model.json; recsys: model.safetensors,
optimizer.safetensors, features.json) and the jobs. snaptrain train and sweep write the same
folder as DIR/continue/ (README "Continue at scale").`,
} as const satisfies CommandSpec<Record<string, FlagSpec>>

/** Runs `snaptrain continue`; resolves to the exit code (0 ok, 1 write error, 2 usage error or unreadable input). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const f = parsed.values
  const dir = resolve(f.run)
  let files: ReturnType<typeof continueBundle>
  let input: BundleInput
  try {
    input = bundleInput(dir, f.engine as ContinueEngine)
    files = continueBundle(input)
  } catch (e) {
    const msg = (e as Error).message
    io.err(`snaptrain continue: ${msg.startsWith('--run') ? msg : `--run ${dir}: ${msg}`}`)
    return 2
  }
  const out = resolve(f.out ?? join(dir, CONTINUE_DIR))
  const named = Object.fromEntries(files.map(x => [x.name.slice(CONTINUE_DIR.length + 1), x.data]))
  writeOutputs(out, named)
  const spec = JSON.parse(String(files[0].data)) as { family: string; source: unknown; files: { jobs: string[] } }
  io.err(`continue: wrote ${files.length} files (jobs: ${spec.files.jobs.join(', ')}) to ${out}`)
  if (f.json)
    io.out(
      JSON.stringify({
        out,
        family: spec.family,
        source: spec.source,
        jobs: spec.files.jobs,
        files: Object.keys(named),
      }),
    )
  return 0
}

/** What the bundle of folder `dir` is made from; throws `--run <dir>: <file>: …`. */
function bundleInput(dir: string, engine: ContinueEngine): BundleInput {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new Error(`--run ${dir}: no such folder`)
  const manifest = readJson(dir, 'manifest.json') as RunManifest
  const family = manifest?.model
  if (typeof family !== 'string' || !FAMILY_NAMES.includes(family))
    throw new Error(`--run ${dir}: manifest.json: not a snaptrain run manifest (model ${JSON.stringify(family)})`)
  const model = readModel(dir, family)
  const where = (e: unknown, file: string) => new Error(`--run ${dir}: ${file}: ${(e as Error).message}`)
  if (existsSync(join(dir, 'sweep.json'))) {
    let state: ReturnType<typeof importSweep>
    try {
      state = importSweep(readFileSync(join(dir, 'sweep.json'), 'utf8'), FAMILY_NAMES)
    } catch (e) {
      throw where(e, 'sweep.json')
    }
    if (state.config.model !== family)
      throw new Error(`--run ${dir}: sweep.json is a ${state.config.model} sweep, manifest.json a ${family} run`)
    const stored = typeof model.data === 'string' ? model.data : Buffer.from(model.data).toString('base64')
    try {
      return sweepBundleInput(state, { model: stored, manifest }, engine)
    } catch (e) {
      throw where(e, 'sweep.json')
    }
  }
  return { manifest, model: model.data, engine }
}

/** A JSON file of `dir`; throws naming it. */
function readJson(dir: string, name: string): unknown {
  const path = join(dir, name)
  if (!existsSync(path)) throw new Error(`--run ${dir}: no ${name} (a snaptrain train or sweep output folder has one)`)
  try {
    return JSON.parse(readFileSync(path, 'utf8'))
  } catch (e) {
    throw new Error(`--run ${dir}: ${name}: not JSON (${(e as Error).message})`)
  }
}

/** The run's model file (the family's modelFiles: GBDT model.json as text or model.ubj, the recommender's model.bin as bytes). */
function readModel(dir: string, family: string): { name: string; data: string | Uint8Array } {
  const names = familyOf(family).modelFiles
  const name = names.find(n => existsSync(join(dir, n)))
  if (!name) throw new Error(`--run ${dir}: no model file (looked for ${names.join(', ')})`)
  const bytes = new Uint8Array(readFileSync(join(dir, name)))
  return { name, data: name.endsWith('.json') ? new TextDecoder().decode(bytes) : bytes }
}
