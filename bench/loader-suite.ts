/**
 * The `loader` suite (runs in the page): the snapshot loader on `clicks`, measured side by side
 * with (1) single-threaded hyparquet on the main thread reading every file whole — rows/s and
 * MB/s of typed arrays with 1, 2 and 4 loader workers, plus where the workers' time went —
 * (2) parquet-wasm + apache-arrow in the same number of workers (bench/loader-wasm.ts), its epochs
 * alternating with the loader's: rows/s, first-batch latency, its workers' conversion time — and
 * (3) the export path: one CSV file exported in Node by the CLI (timed there), then downloaded and
 * parsed here into the same typed batches, vs opening the snapshot and reading it directly — and
 * (4) DuckDB-Wasm (bench/loader-duckdb.ts) reading the same live files into the same typed columns,
 * its epochs alternating with the loader's, an order-free checksum proving equal rows: warm (bytes
 * read again over HTTP vs the loader's epoch 1, epoch cache bypassed), cached (DuckDB's repeated
 * query vs the loader's epochs 2+ from the epoch cache) and cold (from nothing, both).
 * The loader's other rows bypass the epoch cache: they measure reading the table.
 */
import { createLoader } from '../src/data/loader.ts'
import { releaseIdleWorkers } from '../src/data/unit-source.ts'
import { planScan } from '../src/data/plan.ts'
import type { DecodeSpec, LoaderStats, ScanPlan } from '../src/data/types.ts'
import { clearUnitCache } from '../src/data/unit-cache.ts'
import { openSnapshot } from '../src/table/index.ts'
import {
  CLICKS_COLUMNS,
  LOADER_SIZES,
  LOADER_SIZES_QUICK,
  type LoaderSizes,
  addChecksum,
  checksumText,
  firstAndFull,
  repeat,
  type RowChecksum,
  rowChecksum,
  shareValues,
  valueRow,
} from './loader-rows.ts'
import { batchBytes, createCsvBatcher } from './loader-csv.ts'
import { type DuckEpoch, openDuckPeer } from './loader-duckdb.ts'
import { peerEpoch } from './loader-peer.ts'
import { createWasmPeer, type WasmEpoch } from './loader-wasm.ts'
import { wireRows } from './loader-wire.ts'
import { makeRow, withPeer } from './rows.ts'
import { measure } from './measure.ts'
import type { BenchRow, LoaderBenchInput, Sample, SuiteContext } from './types.ts'

/** Encodings the loader is asked for: the same the CSV parser and the peer produce. */
const SPEC: DecodeSpec = Object.fromEntries(CLICKS_COLUMNS.map(c => [c.name, c.encoding]))

/** Runs the suite; without CLI inputs it reads the page server's sample table and skips the CSV rows. */
export async function runLoaderSuite(ctx: SuiteContext): Promise<BenchRow[]> {
  const z = ctx.quick ? LOADER_SIZES_QUICK : LOADER_SIZES
  const input: LoaderBenchInput = ctx.loader ?? { tableUrl: new URL('/tables/clicks/', location.href).href }
  ctx.progress(`planning ${input.tableUrl}`)
  const snapshot = await openSnapshot(input.tableUrl)
  const plan = await planScan(snapshot, { columns: CLICKS_COLUMNS.map(c => c.name) })
  const rows = plan.stats.rows
  const peer = await peerRows(ctx, plan, z)
  const out: BenchRow[] = [...peer]
  for (const workers of z.workers) out.push(...(await loaderRows(ctx, plan, workers, z, peer)))
  out.push(...(await duckdbRows(ctx, plan, input.tableUrl, z)))
  out.push(...(await wireRows(ctx, plan, SPEC, z, input.wire)))
  if (input.csvUrl && input.exportMs !== undefined) out.push(...(await exportRows(ctx, input, z)))
  ctx.progress(`done: ${rows} rows, ${plan.files.length} files, ${plan.units.length} units`)
  return out
}

/** Main-thread hyparquet, whole files: rows/s and MB/s. */
async function peerRows(ctx: SuiteContext, plan: ScanPlan, z: LoaderSizes): Promise<BenchRow[]> {
  ctx.progress('peer: main-thread hyparquet, whole files')
  let rows = 0
  let bytes = 0
  const samples = await measure(async () => {
    const t0 = performance.now()
    const r = await peerEpoch(plan, CLICKS_COLUMNS)
    rows = r.rows
    bytes = r.bytes
    return { wallMs: performance.now() - t0 }
  }, z)
  const workload = 'hyparquet main thread, whole files'
  return [
    makeRow(ctx, { workload, metric: 'throughput', unit: 'M rows/s', samples, fromSeconds: s => rows / s / 1e6 }),
    makeRow(ctx, { workload, metric: 'typed bytes', unit: 'MB/s', samples, fromSeconds: s => bytes / s / 1e6 }),
  ]
}

/** One epoch through the loader per sample (epoch = sample index, shuffled); rows, bytes and stats. */
async function loaderEpochs(
  plan: ScanPlan,
  workers: number,
  z: LoaderSizes,
  after?: () => Promise<void>,
): Promise<{ samples: Sample[]; rows: number; bytes: number; stats: LoaderStats[]; firstS: number[] }> {
  const stats: LoaderStats[] = []
  const firstS: number[] = []
  let rows = 0
  let bytes = 0
  let epoch = 0
  const samples = await measure(async () => {
    const t0 = performance.now()
    const loader = createLoader(plan, {
      assign: { seed: 1, epoch: epoch++, worldSize: 1, rank: 0 },
      batchSize: z.batchSize,
      spec: SPEC,
      workers,
      cache: false,
    })
    try {
      rows = 0
      bytes = 0
      for await (const b of loader.batches()) {
        if (rows === 0) firstS.push((performance.now() - t0) / 1000)
        rows += b.size
        bytes += batchBytes(b)
      }
      const wallMs = performance.now() - t0
      stats.push(loader.stats())
      return { wallMs }
    } finally {
      await loader.close()
      await after?.() // the parquet-wasm peer's epoch, right after each of ours (untimed here)
    }
  }, z)
  return { samples, rows, bytes, stats: stats.slice(-samples.length), firstS: firstS.slice(-samples.length) }
}

async function loaderRows(
  ctx: SuiteContext,
  plan: ScanPlan,
  workers: number,
  z: LoaderSizes,
  peer: BenchRow[],
): Promise<BenchRow[]> {
  ctx.progress(`loader and parquet-wasm, alternating: ${workers} worker(s), batch ${z.batchSize}`)
  const wasm = createWasmPeer(plan, CLICKS_COLUMNS, workers)
  const wasmEpochs: WasmEpoch[] = []
  const { samples, rows, bytes, stats, firstS } = await loaderEpochs(plan, workers, z, async () => {
    wasmEpochs.push(await wasm.epoch())
  }).finally(() => wasm.close())
  if (rows !== plan.stats.rows) throw new Error(`loader delivered ${rows} rows, the plan has ${plan.stats.rows}`)
  const workload = `snapshot loader workers=${workers}`
  const wasmOut = wasmPeerRows(ctx, plan, workers, wasmEpochs.slice(-samples.length))
  const ours = makeRow(ctx, {
    workload,
    metric: 'throughput',
    unit: 'M rows/s',
    samples,
    fromSeconds: s => rows / s / 1e6,
  })
  const vsWasm = [
    withPeer({ ...ours, workload: `${workload} vs parquet-wasm` }, wasmOut[0]!),
    withPeer(valueRow(ctx, `${workload} first batch`, 'latency', 's', firstS), wasmOut[2]!),
  ]
  const shares = shareValues(stats)
  const out = [
    withPeer(ours, peer[0]!),
    withPeer(
      makeRow(ctx, { workload, metric: 'typed bytes', unit: 'MB/s', samples, fromSeconds: s => bytes / s / 1e6 }),
      peer[1]!,
    ),
  ]
  if (shares.network.length > 0)
    out.push(
      valueRow(ctx, `${workload} network`, 'share of worker time', '%', shares.network),
      valueRow(ctx, `${workload} decode`, 'share of worker time', '%', shares.decode),
      valueRow(ctx, `${workload} transfer`, 'share of worker time', '%', shares.transfer),
      // Absolute seconds per epoch (summed over workers), to set beside the peer's conversion time.
      valueRow(
        ctx,
        `${workload} workers waiting for bytes`,
        'time per epoch',
        's',
        stats.map(t => t.fetchMs / 1000),
      ),
      valueRow(
        ctx,
        `${workload} workers decoding`,
        'time per epoch',
        's',
        stats.map(t => t.decodeMs / 1000),
      ),
      valueRow(
        ctx,
        `${workload} batch assembly (loader thread)`,
        'time per epoch',
        's',
        stats.map(t => (t.assembleMs ?? 0) / 1000),
      ),
      valueRow(
        ctx,
        `${workload} loader thread waiting for units`,
        'time per epoch',
        's',
        stats.map(t => t.waitMs / 1000),
      ),
    )
  return [...out, ...wasmOut, ...vsWasm]
}

/**
 * Rows of the parquet-wasm peer's timed epochs: rows/s, MB/s, first unit, and its workers' CPU
 * seconds converting. Its reads (range requests + WASM decode, one async call, several in flight
 * per worker) overlap one another, so their summed durations say nothing and are not reported.
 */
function wasmPeerRows(ctx: SuiteContext, plan: ScanPlan, workers: number, epochs: readonly WasmEpoch[]): BenchRow[] {
  for (const e of epochs)
    if (e.rows !== plan.stats.rows)
      throw new Error(`parquet-wasm peer delivered ${e.rows} rows, the plan has ${plan.stats.rows}`)
  const workload = `parquet-wasm + apache-arrow workers=${workers}`
  const samples: Sample[] = epochs.map(e => ({ wallMs: e.wallMs }))
  const rows = plan.stats.rows
  const bytes = epochs[0]?.bytes ?? 0
  return [
    makeRow(ctx, { workload, metric: 'throughput', unit: 'M rows/s', samples, fromSeconds: s => rows / s / 1e6 }),
    makeRow(ctx, { workload, metric: 'typed bytes', unit: 'MB/s', samples, fromSeconds: s => bytes / s / 1e6 }),
    valueRow(
      ctx,
      `${workload} first batch`,
      'latency',
      's',
      epochs.map(e => e.firstMs / 1000),
    ),
    valueRow(
      ctx,
      `${workload} workers converting (IPC + typed columns)`,
      'time per epoch',
      's',
      epochs.map(e => e.convertMs / 1000),
    ),
  ]
}

/** One loader epoch (seed 1, epoch `epoch`): ms, rows, stats; `sum` gets the rows' checksum (its time left out). */
async function loaderEpoch(
  plan: ScanPlan,
  o: { workers: number; batchSize: number; epoch: number; cache: boolean; sum?: RowChecksum },
): Promise<{ wallMs: number; rows: number; stats: LoaderStats }> {
  const t0 = performance.now()
  let sumMs = 0
  let rows = 0
  const loader = createLoader(plan, {
    assign: { seed: 1, epoch: o.epoch, worldSize: 1, rank: 0 },
    batchSize: o.batchSize,
    spec: SPEC,
    workers: o.workers,
    cache: o.cache,
  })
  try {
    for await (const b of loader.batches()) {
      rows += b.size
      if (!o.sum) continue
      const s0 = performance.now()
      const cols = Object.fromEntries(Object.entries(b.columns).map(([k, c]) => [k, c.values]))
      addChecksum(o.sum, CLICKS_COLUMNS, b.size, cols)
      sumMs += performance.now() - s0
    }
    return { wallMs: performance.now() - t0 - sumMs, rows, stats: loader.stats() }
  } finally {
    await loader.close()
  }
}

/** Throws when DuckDB's rows (checksum) differ from the loader's or either misses rows of the plan. */
function sameRows(what: string, plan: ScanPlan, duck: DuckEpoch, ours: { rows: number; sum?: RowChecksum }): void {
  const rows = plan.stats.rows
  if (duck.rows !== rows || ours.rows !== rows)
    throw new Error(
      `loader suite, ${what}: DuckDB-Wasm delivered ${duck.rows} rows, the loader ${ours.rows}, the plan has ${rows}`,
    )
  const a = duck.checksum
  const b = ours.sum
  if (a && b && (a.rows !== b.rows || a.sum !== b.sum || a.xor !== b.xor))
    throw new Error(`loader suite, ${what}: DuckDB-Wasm delivered ${checksumText(a)}, the loader ${checksumText(b)}`)
}

/**
 * DuckDB-Wasm beside the loader (z.duckdbWorkers workers), one epoch of each in turn, warmup +
 * repeats per row; each row's first epochs compare the two checksums (the bench throws when they
 * differ): warm (a fresh registration, every byte over HTTP again, vs the loader's epoch with the
 * epoch cache bypassed), cached (DuckDB's repeated query vs the loader's epochs 2+ from the epoch
 * cache, cleared and filled by one untimed epoch first) and cold (a new DuckDB: worker, WASM, open,
 * register, query, vs the loader opening the snapshot, planning and starting released workers).
 */
async function duckdbRows(ctx: SuiteContext, plan: ScanPlan, tableUrl: string, z: LoaderSizes): Promise<BenchRow[]> {
  const workers = z.duckdbWorkers
  const row = (workload: string, ms: readonly number[]): BenchRow =>
    makeRow(ctx, {
      workload,
      metric: 'throughput',
      unit: 'M rows/s',
      samples: ms.map(wallMs => ({ wallMs })),
      fromSeconds: s => plan.stats.rows / s / 1e6,
    })
  const times = () => ({ duck: [] as number[], ours: [] as number[] })
  const warm = times()
  const cached = times()
  const cold = times()
  const fetchedMb: number[] = []
  let epoch = 0
  const ours = (cache: boolean, sum?: RowChecksum) =>
    loaderEpoch(plan, { workers, batchSize: z.batchSize, epoch: epoch++, cache, sum })
  ctx.progress(`DuckDB-Wasm and the loader (${workers} workers), alternating: warm, cached, cold`)
  const duck = await openDuckPeer(plan, CLICKS_COLUMNS)
  const label = duck.label
  try {
    for (let i = 0; i < z.warmup + z.repeats; i++) {
      const sum = i === 0 ? rowChecksum() : undefined
      const d = await duck.epoch({ fresh: true, checksum: i === 0 })
      const l = await ours(false, sum)
      sameRows('warm', plan, d, { rows: l.rows, sum })
      if (sum) ctx.progress(`warm: DuckDB-Wasm and the loader delivered ${checksumText(sum)}`)
      if (i < z.warmup) continue
      warm.duck.push(d.wallMs)
      warm.ours.push(l.wallMs)
    }
    await clearUnitCache()
    await ours(true) // epoch 1 fills the epoch cache
    for (let i = 0; i < z.warmup + z.repeats; i++) {
      const sum = i === 0 ? rowChecksum() : undefined
      const d = await duck.epoch({ fresh: false, checksum: i === 0 })
      const l = await ours(true, sum)
      sameRows('cached', plan, d, { rows: l.rows, sum })
      const r = d.reads
      if (i === 0)
        ctx.progress(
          `cached: DuckDB's file reads in a repeated query: ${r.cold} cold, ${r.ahead} ahead, ${r.cached} cached`,
        )
      if (i < z.warmup) continue
      cached.duck.push(d.wallMs)
      cached.ours.push(l.wallMs)
      fetchedMb.push(l.stats.bytesFetched / 1e6)
    }
  } finally {
    await duck.close()
  }
  await clearUnitCache()
  for (let i = 0; i < z.warmup + z.repeats; i++) {
    releaseIdleWorkers()
    const t0 = performance.now()
    const fresh = await openDuckPeer(plan, CLICKS_COLUMNS)
    const d = await fresh.epoch({ fresh: true }).finally(() => fresh.close())
    const duckMs = performance.now() - t0
    const l = await directEpoch(tableUrl, z.batchSize, workers)
    sameRows('cold', plan, d, { rows: l.rows })
    if (i < z.warmup) continue
    cold.duck.push(duckMs)
    cold.ours.push(l.full * 1000)
  }
  const loader = `snapshot loader workers=${workers}`
  const duckWarm = row(`${label}: bytes read again over HTTP (fresh registration)`, warm.duck)
  const duckCached = row(`${label}: same query repeated (its buffers, no reads)`, cached.duck)
  const duckCold = row(`${label} cold: worker + WASM + open + register + query`, cold.duck)
  return [
    duckWarm,
    withPeer(row(`${loader} epoch 1 (epoch cache bypassed) vs duckdb-wasm warm`, warm.ours), duckWarm),
    duckCached,
    withPeer(row(`${loader} epochs 2+ from the epoch cache vs duckdb-wasm cached`, cached.ours), duckCached),
    valueRow(ctx, `${loader} epochs 2+ from the epoch cache: bytes fetched`, 'per epoch', 'MB', fetchedMb),
    duckCold,
    withPeer(row(`${loader} cold: open + plan + workers + epoch vs duckdb-wasm cold`, cold.ours), duckCold),
  ]
}

/** Time to first batch and to a full epoch: CSV (export + download + parse) vs the snapshot read directly. */
async function exportRows(ctx: SuiteContext, input: LoaderBenchInput, z: LoaderSizes): Promise<BenchRow[]> {
  const exportS = input.exportMs! / 1000
  ctx.progress(`export path: CSV ${input.csvUrl} (${input.csvBytes ?? '?'} bytes, export ${exportS.toFixed(1)} s)`)
  const csv = await repeat(() => csvEpoch(input.csvUrl!, z.batchSize), z)
  const direct = await repeat(() => directEpoch(input.tableUrl, z.batchSize, z.exportWorkers), z)
  const exportRow = valueRow(
    ctx,
    `csv export in Node (read version + write 1 file, ${input.exportRows ?? '?'} rows)`,
    'latency',
    's',
    [exportS],
  )
  const csvFirst = firstAndFull(csv, 'first')
  const csvFull = firstAndFull(csv, 'full')
  const rows: BenchRow[] = [
    exportRow,
    valueRow(ctx, 'csv download+parse (page), first batch', 'latency', 's', csvFirst),
    valueRow(ctx, 'csv download+parse (page), full epoch', 'latency', 's', csvFull),
  ]
  const pathFirst = valueRow(
    ctx,
    'csv path: export + download + parse, first batch',
    'time to first batch',
    's',
    csvFirst.map(s => s + exportS),
  )
  const pathFull = valueRow(
    ctx,
    'csv path: export + download + parse, full epoch',
    'time to full epoch',
    's',
    csvFull.map(s => s + exportS),
  )
  const workers = z.exportWorkers
  rows.push(
    pathFirst,
    withPeer(
      valueRow(
        ctx,
        `snapshot loader workers=${workers}: open + plan + first batch`,
        'time to first batch',
        's',
        firstAndFull(direct, 'first'),
      ),
      pathFirst,
    ),
  )
  rows.push(
    pathFull,
    withPeer(
      valueRow(
        ctx,
        `snapshot loader workers=${workers}: open + plan + full epoch`,
        'time to full epoch',
        's',
        firstAndFull(direct, 'full'),
      ),
      pathFull,
    ),
  )
  return rows
}

/** Download + streaming parse of the CSV into typed batches: seconds to the first batch and to the last. */
async function csvEpoch(url: string, batchSize: number): Promise<{ first: number; full: number }> {
  const t0 = performance.now()
  const res = await fetch(url)
  if (!res.ok || !res.body) throw new Error(`${url}: HTTP ${res.status}`)
  const batcher = createCsvBatcher(CLICKS_COLUMNS, batchSize)
  let first = -1
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
  for (;;) {
    const { done, value } = await reader.read()
    const batches = done ? batcher.end() : batcher.push(value)
    if (batches.length > 0 && first < 0) first = performance.now() - t0
    if (done) break
  }
  return { first: first / 1000, full: (performance.now() - t0) / 1000 }
}

/**
 * Open the snapshot, plan, and read one shuffled epoch with the loader (epoch cache bypassed):
 * seconds to the first and the last batch, and the rows delivered.
 */
async function directEpoch(
  tableUrl: string,
  batchSize: number,
  workers: number,
): Promise<{ first: number; full: number; rows: number }> {
  releaseIdleWorkers() // "from nothing": no warm workers left by the previous run
  const t0 = performance.now()
  const snapshot = await openSnapshot(tableUrl)
  const plan = await planScan(snapshot, { columns: CLICKS_COLUMNS.map(c => c.name) })
  const loader = createLoader(plan, {
    assign: { seed: 1, epoch: 0, worldSize: 1, rank: 0 },
    batchSize,
    spec: SPEC,
    workers,
    cache: false,
  })
  let first = -1
  let rows = 0
  try {
    for await (const b of loader.batches()) {
      if (first < 0 && b.size > 0) first = performance.now() - t0
      rows += b.size
    }
  } finally {
    await loader.close()
  }
  return { first: first / 1000, full: (performance.now() - t0) / 1000, rows }
}
