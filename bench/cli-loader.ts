/**
 * Node-side preparation of `snaptrain bench --suite loader`: makes sure the clicks table exists
 * (1,000,000 rows under bench/tables/, generated when missing; --quick uses the 200k sample in
 * public/tables; `--tables DIR` the clicks table in DIR, its CSV in a temporary folder removed at
 * the end), serves it and its CSV export on loopback servers with CORS (the page is cross-origin
 * isolated), and times the export step: read the latest version, write ONE CSV.
 */
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { generateSampleTables } from '../tools/datagen/index.ts'
import { openSnapshot } from '../src/table/index.ts'
import type { LoaderBenchInput, WireInput } from './types.ts'
import type { CliIo } from '../src/cli/io.ts'
import { exportSnapshotCsv } from '../src/cli/export-csv.ts'
import { PROJECT_ROOT } from '../src/serve/page-server.ts'
import { streamRows } from '../src/cli/scan.ts'
import { serveDirectory } from '../src/serve/server.ts'
import { planScan } from '../src/data/plan.ts'
import { CLICKS_COLUMNS, LOADER_SIZES, LOADER_SIZES_QUICK } from './loader-rows.ts'
import { fetchPass, wireRanges } from './loader-wire-ranges.ts'

/** Rows of clicks version 0 in the full bench (v1 appends 10%, v2 deletes one country). */
export const BENCH_CLICKS_ROWS = 1_000_000

/** Where the bench's table lives and where its CSV goes, for the full or the quick run. */
export function loaderBenchPaths(
  quick: boolean,
  root = PROJECT_ROOT,
): { tableDir: string; rows: number; csvPath: string } {
  const rows = quick ? 200_000 : BENCH_CLICKS_ROWS
  const tableDir = quick
    ? join(root, 'public', 'tables', 'clicks')
    : join(root, 'bench', 'tables', `clicks-${rows}`, 'clicks')
  return { tableDir, rows, csvPath: join(root, 'bench', 'tables', `clicks-${rows}.csv`) }
}

/** Prepared inputs plus the servers to close. */
export interface PreparedLoaderBench {
  input: LoaderBenchInput
  close(): Promise<void>
}

/**
 * Generates the table if missing (saying so on stderr), serves it, exports and times the CSV.
 * With `tables` (`--tables DIR`) it reads DIR/clicks as it is (throws naming DIR when it has none)
 * and exports the CSV into a temporary folder that `close` removes.
 */
export async function prepareLoaderBench(quick: boolean, io: CliIo, tables?: string): Promise<PreparedLoaderBench> {
  if (tables !== undefined) {
    const tableDir = resolve(tables, 'clicks')
    if (!(await stat(join(tableDir, '_delta_log')).catch(() => null)))
      throw new Error(
        `bench: --tables ${tables}: no clicks table (${tableDir}/_delta_log), which the loader suite reads`,
      )
    const tmp = await mkdtemp(join(tmpdir(), 'snaptrain-bench-loader-'))
    const prepared = await serveAndExport(tableDir, join(tmp, 'clicks.csv'), io, quick).catch(async e => {
      await rm(tmp, { recursive: true, force: true })
      throw e
    })
    return {
      input: prepared.input,
      close: async () => {
        await prepared.close()
        await rm(tmp, { recursive: true, force: true })
      },
    }
  }
  const { tableDir, rows, csvPath } = loaderBenchPaths(quick)
  if (!(await stat(join(tableDir, '_delta_log')).catch(() => null))) {
    io.err(`loader: ${tableDir} is missing; generating clicks with ${rows} rows (seed 42), once`)
    await generateSampleTables({
      outDir: dirname(tableDir),
      rows,
      tables: ['clicks'],
      ifMissing: true,
      log: s => io.err(`loader: ${s}`),
    })
  }
  return serveAndExport(tableDir, csvPath, io, quick)
}

/** Serves `tableDir` (as clicks/) and the folder of `csvPath`, exports the latest version to `csvPath`, timed. */
async function serveAndExport(
  tableDir: string,
  csvPath: string,
  io: CliIo,
  quick: boolean,
): Promise<PreparedLoaderBench> {
  const tables = await serveDirectory(dirname(tableDir), { cors: true })
  // A fresh clone has no bench/tables yet: the CSV peer's file is exported into it below.
  await mkdir(dirname(csvPath), { recursive: true })
  const csvs = await serveDirectory(dirname(csvPath), { cors: true }).catch(async e => {
    await tables.close()
    throw e
  })
  const close = async (): Promise<void> => {
    await tables.close()
    await csvs.close()
  }
  try {
    const tableUrl = `${tables.url}clicks/`
    const snapshot = await openSnapshot(tableUrl)
    io.err(`loader: exporting ${tableDir} version ${snapshot.version} to ${csvPath}`)
    const done = await exportSnapshotCsv(snapshot, columns => streamRows(snapshot, { columns }), resolve(csvPath))
    io.err(
      `loader: export wrote ${done.rows} rows, ${(done.bytes / 1e6).toFixed(1)} MB in ${(done.ms / 1000).toFixed(1)} s`,
    )
    const csvUrl = `${csvs.url}${encodeURIComponent(csvPath.slice(dirname(csvPath).length + 1))}`
    const wire = await nodeWire(tableUrl, quick)
    io.err(`loader: Node client over the loader's ranges: ${wire.mbps.map(v => v.toFixed(0)).join(', ')} MB/s`)
    return {
      input: { tableUrl, csvUrl, exportMs: done.ms, exportRows: done.rows, csvBytes: done.bytes, wire },
      close,
    }
  } catch (e) {
    await close()
    throw e
  }
}

/**
 * The Node client's passes (Node's fetch, the same ranges and requests in flight as the page's
 * plain passes) over the ranges one loader epoch fetches: warmup + repeats as the page's samples.
 */
async function nodeWire(tableUrl: string, quick: boolean): Promise<WireInput> {
  const z = quick ? LOADER_SIZES_QUICK : LOADER_SIZES
  const plan = await planScan(await openSnapshot(tableUrl), { columns: CLICKS_COLUMNS.map(c => c.name) })
  const ranges = wireRanges(plan)
  const passes = []
  for (let i = 0; i < z.warmup + z.repeats; i++) passes.push(await fetchPass(ranges))
  const timed = passes.slice(z.warmup)
  return { mbps: timed.map(p => p.bytes / p.ms / 1e3), bytes: timed[0]?.bytes ?? 0 }
}
