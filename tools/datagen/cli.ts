/**
 * `snaptrain data`: writes the sample Delta tables (clicks, marketing) under public/tables so
 * the dev server, the tests and the benchmarks have real tables to read (from the installed
 * package: under ./tables, or --out). `--if-missing` makes
 * it a cheap no-op when the tables already match the requested seed and rows (npm start/test).
 */
import { resolve } from 'node:path'
import { parseCommand } from '../../src/cli/args.ts'
import type { CliIo } from '../../src/cli/io.ts'
import { IN_CHECKOUT, SAMPLE_TABLES as SAMPLE_DIR } from '../../src/serve/page-server.ts'
import {
  DEFAULT_CLICKS_ROWS,
  DEFAULT_MARKETING_ROWS,
  DEFAULT_SEED,
  SAMPLE_TABLES,
  generateSampleTables,
} from './index.ts'

const SPEC = {
  name: 'data',
  summary: 'Generate the sample Delta tables (clicks: 3 versions; marketing: 1 version).',
  flags: {
    rows: {
      type: 'int',
      min: 100,
      default: DEFAULT_CLICKS_ROWS,
      placeholder: 'N',
      help: 'rows of clicks version 0 (v1 appends 10%)',
    },
    'marketing-rows': {
      type: 'int',
      min: 100,
      default: DEFAULT_MARKETING_ROWS,
      placeholder: 'N',
      help: 'rows of the marketing table',
    },
    seed: {
      type: 'int',
      min: 0,
      default: DEFAULT_SEED,
      placeholder: 'S',
      help: 'seed; same seed ⇒ byte-identical files',
    },
    out: {
      type: 'string',
      placeholder: 'dir',
      help: 'output folder (default public/tables in a checkout, else ./tables)',
    },
    tables: { type: 'list', placeholder: 'a,b', help: `tables to write (default ${SAMPLE_TABLES.join(',')})` },
    'if-missing': { type: 'boolean', help: 'skip tables that exist with the same seed and rows' },
    json: { type: 'boolean', help: 'print a JSON summary as the last stdout line' },
  },
} as const

/** Runs `snaptrain data`; resolves to the exit code (2 on a bad flag). */
export async function run(argv: string[], io: CliIo): Promise<number> {
  const parsed = parseCommand(argv, SPEC, io)
  if (typeof parsed === 'number') return parsed
  const f = parsed.values
  const unknown = f.tables.find(t => !(SAMPLE_TABLES as readonly string[]).includes(t))
  if (unknown !== undefined) {
    io.err(`snaptrain data: --tables: unknown table '${unknown}' (known: ${SAMPLE_TABLES.join(', ')})`)
    return 2
  }
  const outDir = resolve(f.out ?? (IN_CHECKOUT ? SAMPLE_DIR : 'tables'))
  const summary = await generateSampleTables({
    outDir,
    rows: f.rows,
    marketingRows: f['marketing-rows'],
    seed: f.seed,
    ifMissing: f['if-missing'],
    tables: f.tables.length > 0 ? f.tables : undefined,
    log: s => io.err(`data: ${s}`),
  })
  if (f.json) {
    io.out(
      JSON.stringify({
        outDir,
        tables: summary.tables.map(t => ({ ...t.info, dir: t.dir, skipped: t.skipped, ms: Math.round(t.ms) })),
      }),
    )
    return 0
  }
  for (const t of summary.tables) {
    io.out(
      `${t.table}: ${t.skipped ? 'skipped (up to date)' : 'written'} ${t.dir} — ${t.info.finalRows} rows in ${t.info.files.length} files, ` +
        `versions ${t.info.versions.length}, base rate ${t.info.baseRate.toFixed(4)}, Bayes AUC ${t.info.bayesAuc.toFixed(4)}`,
    )
  }
  return 0
}
