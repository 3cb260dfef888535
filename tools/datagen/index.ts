/**
 * `generateSampleTables`: writes the sample Delta tables (clicks, marketing) under one folder.
 * Each table is built in a temporary sibling folder and renamed into place, so a reader (or an
 * `ifMissing` run racing this one) never sees a half-written table.
 */
import { existsSync } from 'node:fs'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { CLICKS_GENERATOR, writeClicks } from './clicks.ts'
import { MARKETING_GENERATOR, writeMarketing } from './marketing.ts'
import type { GeneratorInfo, Summary, TableSummary } from './types.ts'

/** Default rows of the clicks table's version 0. */
export const DEFAULT_CLICKS_ROWS = 200_000
/** Default rows of the marketing table. */
export const DEFAULT_MARKETING_ROWS = 45_000
/** Default seed. */
export const DEFAULT_SEED = 42
/** Tables the generator knows, in generation order. */
export const SAMPLE_TABLES = ['clicks', 'marketing'] as const

/** Options of `generateSampleTables`. */
export interface GenerateOptions {
  /** Folder that receives one sub-folder per table. */
  outDir: string
  /** Rows of clicks v0 (default 200 000). */
  rows?: number
  /** Rows of marketing (default 45 000). */
  marketingRows?: number
  seed?: number
  /** Skip a table whose `_delta_log` exists and whose `_generator.json` has the same seed, rows and generator id. */
  ifMissing?: boolean
  /** Subset of SAMPLE_TABLES (default all). */
  tables?: string[]
  log?: (s: string) => void
}

/** A table's generator: its id (as recorded in `_generator.json`) and its write function. */
interface TableGenerator {
  id: string
  write: (o: { dir: string; rows: number; seed: number; log?: (s: string) => void }) => Promise<GeneratorInfo>
}

const GENERATORS: Record<string, TableGenerator> = {
  clicks: { id: CLICKS_GENERATOR, write: writeClicks },
  marketing: { id: MARKETING_GENERATOR, write: writeMarketing },
}

/** Generates the requested tables; same options ⇒ byte-identical files. */
export async function generateSampleTables(opts: GenerateOptions): Promise<Summary> {
  const tables = opts.tables ?? [...SAMPLE_TABLES]
  for (const t of tables) {
    if (!(SAMPLE_TABLES as readonly string[]).includes(t))
      throw new Error(`datagen: unknown table '${t}' (known: ${SAMPLE_TABLES.join(', ')})`)
  }
  const seed = opts.seed ?? DEFAULT_SEED
  const summary: Summary = { outDir: opts.outDir, tables: [] }
  for (const table of tables) {
    const rows =
      table === 'clicks' ? (opts.rows ?? DEFAULT_CLICKS_ROWS) : (opts.marketingRows ?? DEFAULT_MARKETING_ROWS)
    checkCount(table === 'clicks' ? 'rows' : 'marketingRows', rows)
    summary.tables.push(await generateTable(opts, table, rows, seed, GENERATORS[table]))
  }
  return summary
}

async function generateTable(
  opts: GenerateOptions,
  table: string,
  rows: number,
  seed: number,
  gen: TableGenerator,
): Promise<TableSummary> {
  const dir = join(opts.outDir, table)
  if (opts.ifMissing) {
    const info = await existingInfo(dir)
    if (info && info.seed === seed && info.rows === rows && info.generator === gen.id) {
      opts.log?.(`${table}: up to date (seed ${seed}, ${rows} rows), skipped`)
      return { table, dir, skipped: true, info, ms: 0 }
    }
  }
  const start = performance.now()
  // Said before the work: a first `npm start` writes for tens of seconds before vite starts.
  opts.log?.(`${table}: generating ${rows} rows (seed ${seed}) into ${dir} …`)
  const tmp = join(opts.outDir, `.${table}.tmp-${process.pid}`)
  await rm(tmp, { recursive: true, force: true })
  try {
    const info = await gen.write({ dir: tmp, rows, seed, log: opts.log })
    await writeFile(join(tmp, '_generator.json'), JSON.stringify(info, null, 2) + '\n')
    await rm(dir, { recursive: true, force: true })
    await rename(tmp, dir)
    const ms = performance.now() - start
    opts.log?.(
      `${table}: ${info.finalRows} rows, base rate ${info.baseRate.toFixed(4)}, Bayes AUC ${info.bayesAuc.toFixed(4)} (${(ms / 1000).toFixed(1)} s)`,
    )
    return { table, dir, skipped: false, info, ms }
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
}

/** The `_generator.json` of an existing table, or undefined if the table or file is missing/bad. */
async function existingInfo(dir: string): Promise<GeneratorInfo | undefined> {
  if (!existsSync(join(dir, '_delta_log'))) return undefined
  try {
    return JSON.parse(await readFile(join(dir, '_generator.json'), 'utf8')) as GeneratorInfo
  } catch {
    return undefined
  }
}

function checkCount(name: string, n: number): void {
  // Below 100 rows a table cannot have 4 files × several row groups plus a delete.
  if (!Number.isInteger(n) || n < 100) throw new RangeError(`datagen: ${name} must be an integer ≥ 100, got ${n}`)
}

export type { GeneratorInfo, Summary, TableSummary } from './types.ts'
