/**
 * `snaptrain <command> …` entry: dispatches to one module per command. Each command module
 * exports `run(argv, io)` and returns the process exit code; errors thrown out of a command are
 * printed as one line naming the cause (DESIGN.md, headless contract).
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { CliIo } from './io.ts'
import { defaultIo, reportError, safeIo } from './io.ts'
import { FAMILY_NAMES } from '../models/registry.ts'
import { installUnitCacheFolder } from './unit-cache-folder.ts'

type CommandModule = { run: (argv: string[], io: CliIo) => Promise<number> }
type Command = { summary: string; load: () => Promise<CommandModule> }

/**
 * Loader of a checkout-only command: `quality` reads the public data sets' CSVs in bench/data/,
 * which are in a clone of the repository but not in the installed package (package.json
 * `files`); without the folder the command fails naming it. `root`: the repository root (tests
 * point it elsewhere). The lazy imports of bench/ and tools/ here are the only edges from src/
 * into those folders (tests/unit/dependencies.test.ts); the build bundles them with the CLI.
 */
export function checkoutOnly(
  command: string,
  folder: string,
  load: () => Promise<CommandModule>,
  root: URL = new URL('../../', import.meta.url),
): () => Promise<CommandModule> {
  return async () => {
    const dir = fileURLToPath(new URL(`${folder}/`, root))
    if (!existsSync(dir)) {
      throw new Error(
        `'snaptrain ${command}' needs a snaptrain source checkout: ${folder}/ is not part of the installed package (looked in ${dir}); run it from a clone of the repository`,
      )
    }
    return load()
  }
}

const COMMANDS: Record<string, Command> = {
  scan: {
    summary: 'read a Delta table snapshot: rows (jsonl/csv/ids), filtered, sharded, shuffled, resumable',
    load: () => import('./scan.ts'),
  },
  shares: {
    summary: 'list the shares, schemas and tables a Delta Sharing profile can read',
    load: () => import('./shares.ts'),
  },
  data: {
    summary: 'generate the sample Delta tables (clicks, marketing) under public/tables, or ./tables when installed',
    load: () => import('../../tools/datagen/cli.ts'),
  },
  bench: {
    summary: 'run benchmark suites in headless Chromium and write JSON results',
    load: () => import('../../bench/cli.ts'),
  },
  train: {
    summary: `train a model (${FAMILY_NAMES.join(', ')}) on a table in headless Chromium; writes the model, manifest.json, metrics.csv`,
    load: () => import('./train.ts'),
  },
  predict: {
    summary:
      'predict a table with a GBDT model.json/.ubj (margin,prediction per row) or a recommender model.bin (logit,prediction)',
    load: () => import('./predict.ts'),
  },
  continue: {
    summary:
      'write the continue bundle of a train or sweep folder: continue.json, the model, jobs for XGBoost on Dask/Spark or PyTorch DDP',
    load: () => import('./continue.ts'),
  },
  export: {
    summary: 'convert a recommender model.bin to ONNX or safetensors + features.json (PyTorch), in Node',
    load: () => import('./export.ts'),
  },
  sweep: {
    summary:
      'sweep hyperparameters (grid/random/hyperband/asha/tpe/bohb) in headless Chromium; writes trials.csv, sweep.json, the best model',
    load: () => import('./sweep.ts'),
  },
  quality: {
    summary:
      'validation AUC vs XGBoost hist on the sample, HIGGS-like and public categorical tables; --categorical compares split kinds (bench/README.md; checkout only)',
    load: checkoutOnly('quality', 'bench/data', () => import('../../bench/quality.ts')),
  },
  serve: {
    summary: 'serve the app with a local table (or a folder of tables) in its table list, until Ctrl-C',
    load: () => import('./serve.ts'),
  },
}

const USAGE = `usage: snaptrain <command> [options]

commands:
${Object.entries(COMMANDS)
  .map(([k, c]) => `  ${k.padEnd(8)}${c.summary}`)
  .join('\n')}

Run 'snaptrain <command> --help' for a command's options.`

/**
 * Runs the CLI with `argv` (without node and script); resolves to the exit code. Everything the
 * command prints goes through safeIo: messages redacted and escaped, data as is.
 */
export async function main(argv: string[], given: CliIo = defaultIo()): Promise<number> {
  const io = safeIo(given)
  const [name, ...rest] = argv
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    io.out(USAGE)
    return name ? 0 : 2
  }
  const cmd = COMMANDS[name]
  if (!cmd) {
    io.err(`snaptrain: unknown command '${name}'\n${USAGE}`)
    return 2
  }
  // Library warnings (a checkpoint the reader passed over, say) default to console.warn; during a
  // command they go through the same sink as everything else, redacted and escaped.
  const warn = console.warn
  console.warn = (...args: unknown[]) => io.err(args.map(String).join(' '))
  // Loaders run in this process spill their epoch cache to the cache folder (the page has OPFS).
  installUnitCacheFolder()
  try {
    const mod = await cmd.load()
    return await mod.run(rest, io)
  } catch (e) {
    reportError(io, e)
    return 1
  } finally {
    console.warn = warn
  }
}
