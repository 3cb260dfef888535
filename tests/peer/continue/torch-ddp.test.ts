/**
 * The continue bundle's PyTorch DDP job (torch_ddp.py), run as written with `torchrun
 * --nproc_per_node 2` on gloo over a generated 3000-row clicks table (its `history` bag column,
 * its `emb` list column): `snaptrain train --model recsys` on the CPU reference writes the run and
 * its bundle (continue/), then the job, each rank reading its own shard through `snaptrain scan`:
 * - warm start: every row's step-0 prediction equals `snaptrain predict`'s (≤ 1e-5); the job's
 *   first update equals one more step of the CPU reference from the checkpoint on the same rows
 *   (model-ref.ts + optimizer.ts: weights, Adam moments, Adagrad sums or row-wise Adam state,
 *   steps ≤ 1e-5; the same step from zeroed optimizer state is far off, so the restore matters);
 *   the held-out rows are the run's (count; before the first step their AUC and logloss are the run's
 *   last evaluation's, ≤ 1e-6) and each evaluation prints AUC and logloss;
 * - the same with row-wise Adam embeddings, AdamW and a low-rank DCN cross layer;
 * - a cold start runs and prints AUC; the features it derives from both ranks' training rows
 *   (statistics gathered and merged) are snaptrain's for the same rows (buckets, offsets, pooling,
 *   indicators, list length exact; mean and std ≤ 1e-9 relative).
 * torch 1.13 on Python 3.11 (Debian) needs torchrun's `--redirects 1 --tee 1`: its default "0"
 * no longer parses there (README "PyTorch DDP").
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeCheckpoint, type Checkpoint } from '../../../src/models/recsys/checkpoint.ts'
import { initOptimizerState } from '../../../src/models/recsys/init.ts'
import { modelBackward, modelForward } from '../../../src/models/recsys/model-ref.ts'
import { applyOptimizers, stepLr } from '../../../src/models/recsys/optimizer.ts'
import { optimizerTensors } from '../../../src/models/recsys/optimizer-safetensors.ts'
import { exportTensors } from '../../../src/models/recsys/safetensors.ts'
import type { ModelBatch } from '../../../src/models/recsys/types.ts'
import { REPO, runMain } from '../../support/cli.ts'
import { pythonPeer } from '../../support/peers.ts'

const peer = pythonPeer(['torch'])
const TORCHRUN = '/usr/bin/torchrun'
/** torchrun's own flags: one machine on a free port, 2 processes; stdout teed (Debian's torch 1.13 on Python 3.11). */
const LAUNCH = ['--standalone', '--redirects', '1', '--tee', '1', '--nproc_per_node', '2']
/** How the job reaches the CLI (read_shard runs `$SNAPTRAIN scan …`): the test setup's build. */
const SNAPTRAIN = `${process.execPath} ${join(REPO, 'bin', 'snaptrain.js')}`

let tmp: string
let table: string
beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'st-torch-ddp-'))
  const gen = await runMain([
    'data',
    '--out',
    join(tmp, 'data'),
    '--rows',
    '3000',
    '--marketing-rows',
    '500',
    '--tables',
    'clicks',
  ])
  expect(gen.code, gen.stderr).toBe(0)
  table = join(tmp, 'data', 'clicks')
}, 60_000)
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

/** `snaptrain train --model recsys` on the CPU reference with a 20% validation split; returns the run folder. */
async function train(name: string, params: Record<string, unknown>): Promise<string> {
  const out = join(tmp, name)
  const base = { epochs: 1, batch_size: 512, layers: [8], embedding_dim: 4, lr: 0.01 }
  const r = await runMain([
    'train',
    '--model',
    'recsys',
    '--table',
    table,
    '--label',
    'label',
    '--valid-fraction',
    '0.2',
    '--seed',
    '0',
    '--backend',
    'cpu',
    '--params',
    JSON.stringify({ ...base, ...params }),
    '--out',
    out,
  ])
  expect(r.code, r.stderr).toBe(0)
  expect(existsSync(join(out, 'continue', 'torch_ddp.py')), 'train wrote the bundle').toBe(true)
  return out
}

/** A JSON line rank 0 printed: 'start' (rows, held-out rows, global step) or 'valid' (an evaluation). */
interface JobEvent {
  event: 'start' | 'valid'
  cold: boolean
  rows: number
  valid_rows: number
  step: number
  auc: number
  logloss: number
}

/** The Adagrad run (train's default embedding optimizer; warmup so the lr schedule matters), trained once. */
let adagradRun: Promise<string> | undefined
const adagrad = () => {
  adagradRun ??= train('adagrad', { embedding_lr: 0.1, warmup_steps: 20 })
  return adagradRun
}

/** The JSON events rank 0 printed (torchrun prefixes each line with its rank's tag). */
function events(stdout: string): JobEvent[] {
  return stdout.split('\n').flatMap(l => {
    const at = l.indexOf('{"event"')
    return at < 0 ? [] : [JSON.parse(l.slice(at)) as JobEvent]
  })
}

/** Every file under `dir` (torchrun's --log_dir: each rank's stdout/stderr and error files), as text. */
function logFiles(dir: string): string {
  if (!existsSync(dir)) return `(no ${dir})`
  const out: string[] = []
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name)
    if (statSync(path).isFile()) out.push(`--- ${name}\n${readFileSync(path, 'utf8').slice(-2000)}`)
  }
  return out.join('\n') || '(empty)'
}

let launches = 0
/**
 * torchrun --nproc_per_node 2 torch_ddp.py <args> in the run's bundle, gloo; throws with its output
 * on failure: both streams, the exit status or signal, the time it took and the ranks' own log files
 * (a job that hung after its work — stop 37's CI, the process group torn down with DDP after the
 * other rank had left — showed up only as exit 1 from the timeout's SIGTERM, with nothing said).
 */
function torchrun(run: string, args: string[]): { stdout: string; events: JobEvent[] } {
  const logDir = join(tmp, `torchrun-logs-${++launches}`)
  const t0 = Date.now()
  const r = spawnSync(TORCHRUN, [...LAUNCH, '--log_dir', logDir, 'torch_ddp.py', '--backend', 'gloo', ...args], {
    cwd: join(run, 'continue'),
    env: { ...process.env, SNAPTRAIN, SNAPTRAIN_BUILD_CHECK: '0', SNAPTRAIN_DEBUG: '', OMP_NUM_THREADS: '1' },
    encoding: 'utf8',
    timeout: 120_000,
    maxBuffer: 64 << 20,
  })
  if (r.status !== 0)
    expect.fail(
      `torchrun ${args.join(' ')}: status ${r.status}, signal ${r.signal}, error ${r.error?.message ?? 'none'}, ` +
        `${((Date.now() - t0) / 1000).toFixed(1)} s\n--- stdout\n${r.stdout.slice(-4000)}\n--- stderr\n` +
        `${r.stderr.slice(-4000)}\n--- ${logDir}\n${logFiles(logDir)}`,
    )
  return { stdout: r.stdout, events: events(r.stdout) }
}

/** An independent safetensors reader (F32 and I64): name → values as numbers. */
function readSafetensors(path: string): Map<string, { shape: number[]; values: Float64Array }> {
  const bytes = readFileSync(path)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const n = Number(view.getBigUint64(0, true))
  const header = JSON.parse(bytes.subarray(8, 8 + n).toString('utf8')) as Record<string, Record<string, unknown>>
  const out = new Map<string, { shape: number[]; values: Float64Array }>()
  for (const [name, e] of Object.entries(header)) {
    if (name === '__metadata__') continue
    const [begin] = e.data_offsets as number[]
    const shape = e.shape as number[]
    const count = shape.reduce((a, b) => a * b, 1)
    const values = new Float64Array(count)
    for (let i = 0; i < count; i++)
      values[i] =
        e.dtype === 'I64'
          ? Number(view.getBigInt64(8 + n + begin + 8 * i, true))
          : view.getFloat32(8 + n + begin + 4 * i, true)
    out.set(name, { shape, values })
  }
  return out
}

/** The global batch the job dumped (ranks in order) as the reference's ModelBatch. */
function modelBatch(
  ck: Checkpoint,
  dump: { ranks: { sparse: number[][]; dense: number[][]; labels: number[]; bags: number[][][] }[] },
): ModelBatch {
  const rows: number[] = [],
    dense: number[] = [],
    labels: number[] = [],
    bagRows: number[] = [],
    bagOffsets = [0]
  const bags = ck.layout.bags ?? []
  for (const r of dump.ranks)
    r.labels.forEach((y, b) => {
      r.sparse[b].forEach((bucket, s) => rows.push(ck.layout.sparse[s].tableOffset + bucket))
      dense.push(...r.dense[b])
      labels.push(y)
      bags.forEach((f, k) => {
        for (const item of r.bags[k][b]) bagRows.push(f.tableOffset + item)
        bagOffsets.push(bagRows.length)
      })
    })
  return {
    n: labels.length,
    rows: Uint32Array.from(rows),
    dense: Float32Array.from(dense),
    labels: Float32Array.from(labels),
    ...(bags.length ? { bagRows: Uint32Array.from(bagRows), bagOffsets: Uint32Array.from(bagOffsets) } : {}),
  }
}

/** Largest |Δ| between the named tensors and a file's, and the names compared; throws on a missing name or shape. */
function maxDiff(
  ours: { name: string; shape: number[]; data: ArrayLike<number | bigint> }[],
  theirs: ReturnType<typeof readSafetensors>,
): number {
  let worst = 0
  for (const t of ours) {
    const f = theirs.get(t.name)
    expect(f, `${t.name} in the job's file`).toBeDefined()
    expect(f!.shape, t.name).toEqual(t.shape)
    for (let i = 0; i < f!.values.length; i++) worst = Math.max(worst, Math.abs(Number(t.data[i]) - f!.values[i]))
  }
  expect(theirs.size, 'no tensors beyond ours').toBe(ours.length)
  return worst
}

/**
 * One more step of the CPU reference from `run`'s checkpoint on the job's first global batch; returns max |Δ| of
 * weights and of optimizer state against the job's dump, and the weights' |Δ| from a zeroed optimizer state.
 */
function replayFirstStep(run: string, dumpDir: string) {
  const ck = decodeCheckpoint(readFileSync(join(run, 'model.bin')))
  const dump = JSON.parse(readFileSync(join(dumpDir, 'batch.json'), 'utf8'))
  const batch = modelBatch(ck, dump)
  const rows = JSON.parse(readFileSync(join(run, 'manifest.json'), 'utf8')).table.rows as number
  const totalSteps = ck.params.epochs * Math.ceil(rows / ck.params.batch_size)
  const lr = stepLr(ck.state.opt.step, ck.params, totalSteps)
  const step = (opt: Checkpoint['state']['opt']): Checkpoint => {
    const weights = structuredClone(ck.state.weights)
    const a = modelForward(ck.shape, weights, batch)
    applyOptimizers(ck.shape, ck.params, weights, opt, modelBackward(ck.shape, weights, batch, a), lr)
    return { ...ck, state: { weights, opt } }
  }
  const next = step(structuredClone(ck.state.opt))
  const fresh = step({ ...initOptimizerState(ck.shape, ck.params), step: ck.state.opt.step })
  const weightsFile = readSafetensors(join(dumpDir, 'model.safetensors'))
  return {
    n: batch.n,
    lr: { ours: [lr.dense, lr.embedding], job: dump.lr as number[] },
    step: { ours: next.state.opt.step, job: dump.step as number },
    weights: maxDiff(exportTensors(next), weightsFile),
    optimizer: maxDiff(optimizerTensors(next), readSafetensors(join(dumpDir, 'optimizer.safetensors'))),
    withoutState: maxDiff(exportTensors(fresh), weightsFile),
  }
}

describe.runIf(peer.run)('torch_ddp.py: torchrun --nproc_per_node 2 (gloo) on clicks', () => {
  it('warm start: step-0 predictions = snaptrain predict, first step = one more step here, same held-out rows with AUC', async () => {
    peer.require()
    const run = await adagrad()
    const manifest = JSON.parse(readFileSync(join(run, 'manifest.json'), 'utf8'))
    const version = String(manifest.table.version)
    const dump = join(tmp, 'adagrad-dump')
    const job = torchrun(run, [
      '--steps',
      '3',
      '--dump-first-step',
      dump,
      '--predictions',
      join(tmp, 'adagrad-step0.json'),
    ])

    // (a) every row's step-0 logit, placed in table order by the rows' ids (each shard's as read_shard reads it: every row once).
    const ids = async (shard?: number) => {
      const r = await runMain([
        'scan',
        '--table',
        table,
        '--version',
        version,
        '--format',
        'ids',
        ...(shard === undefined ? [] : ['--shards', '2', '--shard', String(shard), '--mode', 'all']),
      ])
      expect(r.code, r.stderr).toBe(0)
      return r.stdout.split('\n').filter(Boolean)
    }
    const order = new Map((await ids()).map((id, i) => [id, i]))
    const logits = JSON.parse(readFileSync(join(tmp, 'adagrad-step0.json'), 'utf8')).ranks as number[][]
    const preds = join(tmp, 'adagrad-preds.csv')
    const p = await runMain([
      'predict',
      '--model',
      join(run, 'model.bin'),
      '--table',
      table,
      '--version',
      version,
      '--out',
      preds,
      '--cpu',
    ])
    expect(p.code, p.stderr).toBe(0)
    const ours = readFileSync(preds, 'utf8')
      .trim()
      .split('\n')
      .slice(1)
      .map(l => l.split(',').map(Number))
    let seen = 0,
      dProb = 0,
      dLogit = 0
    for (const shard of [0, 1]) {
      const shardIds = await ids(shard)
      expect(logits[shard]).toHaveLength(shardIds.length)
      shardIds.forEach((id, i) => {
        const [logit, prob] = ours[order.get(id)!]
        dProb = Math.max(dProb, Math.abs(1 / (1 + Math.exp(-logits[shard][i])) - prob))
        if (Number.isFinite(logit)) dLogit = Math.max(dLogit, Math.abs(logits[shard][i] - logit))
        seen++
      })
    }
    expect(seen, 'every row once over the two shards').toBe(ours.length)
    expect(dProb).toBeLessThanOrEqual(1e-5)

    // (b) the optimizer state restored: the job's first update is the reference's next step on the same rows.
    const replay = replayFirstStep(run, dump)
    expect(replay.step.job).toBe(replay.step.ours)
    expect(replay.lr.job[0]).toBeCloseTo(replay.lr.ours[0], 12)
    expect(replay.lr.job[1]).toBeCloseTo(replay.lr.ours[1], 12)
    expect(replay.weights).toBeLessThanOrEqual(1e-5)
    expect(replay.optimizer).toBeLessThanOrEqual(1e-5)
    expect(replay.withoutState, 'a restart of Adam/Adagrad would move the weights elsewhere').toBeGreaterThan(1e-3)

    // (c) the held-out rows are the run's; each evaluation prints AUC and logloss over them.
    const start = job.events.find(e => e.event === 'start')!
    expect(start.valid_rows).toBe(manifest.rows_valid)
    expect(start.rows).toBe(ours.length)
    expect(start.step).toBe(manifest.steps)
    const valid = job.events.filter(e => e.event === 'valid')
    expect(valid.map(e => e.step)).toEqual([manifest.steps, manifest.steps + 3])
    // Before the first step the job scores the run's model on the run's held-out rows: the run's last evaluation.
    const last = manifest.metrics.at(-1)
    expect(Math.abs(valid[0].auc - last.auc)).toBeLessThanOrEqual(1e-6)
    expect(Math.abs(valid[0].logloss - last.logloss)).toBeLessThanOrEqual(1e-6)
    for (const e of valid) {
      expect(e.rows).toBe(manifest.rows_valid)
      expect(e.auc).toBeGreaterThan(0)
      expect(e.auc).toBeLessThan(1)
      expect(Number.isFinite(e.logloss)).toBe(true)
    }
    console.log(
      `torch_ddp warm (adagrad): ${seen} rows, max |Δ prob| ${dProb.toExponential(2)}, |Δ logit| ${dLogit.toExponential(2)}; ` +
        `first step on ${replay.n} rows: |Δ w| ${replay.weights.toExponential(2)}, |Δ opt| ${replay.optimizer.toExponential(2)} ` +
        `(from zeroed state ${replay.withoutState.toExponential(2)}); valid ${valid.map(e => `${e.step}: auc ${e.auc.toFixed(4)} logloss ${e.logloss.toFixed(4)}`).join(', ')} over ${start.valid_rows} rows`,
    )
  }, 120_000)

  it('warm start with row-wise Adam embeddings, AdamW and a low-rank cross layer: the first step = one more step here', async () => {
    peer.require()
    const run = await train('rowwise', {
      embedding_optimizer: 'rowwise_adam',
      optimizer: 'adamw',
      weight_decay: 0.01,
      architecture: 'dcn',
      cross_layers: 1,
      cross_rank: 2,
    })
    const dump = join(tmp, 'rowwise-dump')
    torchrun(run, ['--steps', '1', '--dump-first-step', dump])
    const replay = replayFirstStep(run, dump)
    expect(replay.step.job).toBe(replay.step.ours)
    expect(replay.weights).toBeLessThanOrEqual(1e-5)
    expect(replay.optimizer).toBeLessThanOrEqual(1e-5)
    expect(replay.withoutState).toBeGreaterThan(1e-3)
    console.log(
      `torch_ddp warm (rowwise_adam, adamw, dcn rank 2): first step on ${replay.n} rows: |Δ w| ${replay.weights.toExponential(2)}, ` +
        `|Δ opt| ${replay.optimizer.toExponential(2)} (from zeroed state ${replay.withoutState.toExponential(2)})`,
    )
  }, 120_000)

  it("cold start: fresh features and weights from both ranks' training rows, trains and prints AUC", async () => {
    peer.require()
    const run = await adagrad()
    const out = join(tmp, 'cold-out')
    const job = torchrun(run, ['--cold', '--out', out])
    const start = job.events.find(e => e.event === 'start')!
    expect(start.cold).toBe(true)
    expect(start.step).toBe(0)
    const valid = job.events.filter(e => e.event === 'valid')
    expect(valid.map(e => e.step)).toEqual([0, 7])
    for (const e of valid) expect(e.rows).toBe(start.valid_rows)
    for (const e of valid) expect(e.auc > 0 && e.auc < 1 && Number.isFinite(e.logloss), JSON.stringify(e)).toBe(true)
    // The features the ranks derived together are the ones snaptrain derived from the same training rows.
    type Column = Record<string, number | string | boolean>
    const cold = JSON.parse(readFileSync(join(out, 'features.json'), 'utf8')).columns as Column[]
    const ours = JSON.parse(readFileSync(join(run, 'continue', 'features.json'), 'utf8')).columns as Column[]
    const exact = ['name', 'kind', 'buckets', 'cardinality', 'table_offset', 'pooling', 'log1p', 'indicator', 'length']
    const pick = (c: Column) => Object.fromEntries(exact.filter(k => k in c).map(k => [k, c[k]]))
    expect(cold.map(pick)).toEqual(ours.map(pick))
    expect(cold.map(c => c.kind)).toContain('bag')
    expect(cold.find(c => c.kind === 'list')?.length).toBe(8)
    let dStat = 0
    ours.forEach((c, i) => {
      for (const k of ['mean', 'std'])
        if (k in c)
          dStat = Math.max(dStat, Math.abs((cold[i][k] as number) - (c[k] as number)) / Math.abs(c[k] as number))
    })
    expect(dStat).toBeLessThanOrEqual(1e-9)
    expect(readSafetensors(join(out, 'optimizer.safetensors')).get('emb.0.weight.sum')).toBeDefined()
    console.log(
      `torch_ddp cold: features = snaptrain's (mean/std rel. |Δ| ${dStat.toExponential(2)}); ${valid.map(e => `step ${e.step}: auc ${e.auc.toFixed(4)} logloss ${e.logloss.toFixed(4)}`).join(', ')}`,
    )
  }, 120_000)
})
