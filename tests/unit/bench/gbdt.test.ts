import { describe, expect, test } from 'vitest'
import { emptyRound, GBDT_STAGES, RowCounter, StageClock, timedBackend } from '../../../bench/gbdt-stages.ts'
import {
  contiguousGroups,
  peerRow,
  profileRounds,
  quantiseRows,
  scoreClasses,
  taskRows,
  trainingRows,
} from '../../../bench/gbdt-rows.ts'
import type { GbdtPeerResult } from '../../../bench/gbdt-types.ts'
import { makeRow } from '../../../bench/rows.ts'
import type { SuiteContext } from '../../../bench/types.ts'
import { parsePeerLine } from '../../../bench/cli-gbdt.ts'
import { best, qualityMarkdown } from '../../../bench/quality.ts'
import { generateSynthetic } from '../../../tools/datagen/synthetic.ts'
import { binMatrix } from '../../../src/models/gbdt/binned.ts'
import { createCpuBackend } from '../../../src/models/gbdt/cpu-backend.ts'
import { buildCuts } from '../../../src/models/gbdt/cuts.ts'
import { train } from '../../../src/models/gbdt/driver.ts'
import { parseParams } from '../../../src/models/gbdt/params.ts'

const ctx = {
  suite: 'gbdt',
  quick: true,
  commit: 'abc1234',
  date: '2026-01-01T00:00:00.000Z',
  adapter: {
    vendor: 'google',
    architecture: 'swiftshader',
    device: '',
    description: '',
    isFallbackAdapter: true,
    features: [],
    limits: {},
  },
  progress: () => {},
} as unknown as SuiteContext

const peer: GbdtPeerResult = {
  rows: 1000,
  rounds: 4,
  roundSeconds: [9, 0.1, 0.3, 0.2],
  dmatrixSeconds: 0.01,
  validAuc: 0.8,
  xgboost: '1.7.4',
  nthread: 2,
}

describe('gbdt bench: task rows', () => {
  test('the task runs’ labels: K equal-count classes of the summed first three features; contiguous groups', () => {
    const cols = [
      Float32Array.of(3, 1, NaN, 0, 2, 5),
      Float32Array.of(0, 0, 0, -1, 0, 0),
      Float32Array.of(1, 1, 1, 1, 1, 1),
    ]
    // Scores 4, 2, 1, 0, 3, 6 → ranks 4, 2, 1, 0, 3, 5 → classes floor(rank · 3 / 6).
    expect(Array.from(scoreClasses(cols, 3))).toEqual([2, 1, 0, 0, 1, 2])
    expect(Array.from(contiguousGroups(45, 20))).toEqual([0, 20, 40, 45])
    expect(Array.from(contiguousGroups(40, 20))).toEqual([0, 20, 40])
  })

  test('a K-class round against K binary rounds of the same run, and ranking gradients as a share of the round', () => {
    const round = (host: number, histogram: number) => {
      const r = emptyRound()
      r.ms.histogram = histogram
      r.ms['gradient+quantise'] = host + 10
      r.hostGradientMs = host
      return r
    }
    const rows = taskRows(ctx, {
      n: 1000,
      F: 10,
      backend: 'gpu',
      binaryEnds: [0, 100, 300, 400],
      multiEnds: [0, 500, 1100, 1500],
      classes: 26,
      rankRounds: [round(30, 60), round(10, 80)],
      groupRows: 20,
    })
    const multi = rows.find(r => r.workload.startsWith('gbdt multiclass round K=26'))!
    // Binary rounds 0.1, 0.2, 0.1 s → median 0.1 s × 26 = 2.6 s; multiclass rounds 0.6, 0.4 s → 0.5 s.
    expect([multi.value, multi.peer_value]).toEqual([expect.closeTo(0.5), expect.closeTo(2.6)])
    expect(multi.ratio).toBeCloseTo(2.6 / 0.5)
    const share = rows.find(r => r.metric === 'share of the round')!
    // 30 of 100 ms and 10 of 100 ms: median 20 %.
    expect([share.unit, share.min, share.value, share.max]).toEqual(
      ['%', 10, 20, 30].map(v => (typeof v === 'number' ? expect.closeTo(v) : v)),
    )
    expect(taskRows(ctx, { n: 1, F: 1, backend: 'gpu', binaryEnds: [0, 1], classes: 26, groupRows: 20 })).toEqual([])
  })
})

describe('gbdt bench: stage timing wrapper', () => {
  test('is transparent (same trees as the bare CPU backend) and counts built rows per round', async () => {
    const t = generateSynthetic(3000, 9)
    const p = parseParams({ objective: 'binary:logistic', max_depth: 3, num_round: 3, eval_metric: 'auc' })
    const data = { columns: t.columns, labels: t.labels }
    const bare = await train(data, p, createCpuBackend)
    const clock = new StageClock()
    let syncs = 0
    const wrapped = await train(
      data,
      p,
      timedBackend(createCpuBackend, clock, async () => {
        syncs++
      }),
    )
    expect(wrapped.trees.map(x => Array.from(x.splitCondition))).toEqual(
      bare.trees.map(x => Array.from(x.splitCondition)),
    )
    expect(clock.rounds).toHaveLength(3)
    expect(syncs).toBeGreaterThan(3 * 4)
    for (const r of clock.rounds) {
      // Root (all rows) + one smaller child per split node on levels 1..2: ≤ n/2 rows per level.
      expect(r.builds).toBe(3)
      expect(r.builtRows).toBeGreaterThan(3000)
      expect(r.builtRows).toBeLessThanOrEqual(3000 + 2 * 1500)
      expect(r.ms.histogram).toBeGreaterThan(0)
      expect(r.hostGradientMs).toBe(0)
    }
  })

  test('clocks ranking’s host-computed gradients apart, within gradient+quantise, and keeps the trees', async () => {
    const t = generateSynthetic(400, 9)
    const labels = t.labels.map((y, i) => (y + (i % 3)) % 4)
    const groups = Uint32Array.from({ length: 21 }, (_, g) => g * 20)
    const p = parseParams({ objective: 'rank:ndcg', max_depth: 3, num_round: 2, eval_metric: 'ndcg' })
    const data = { columns: t.columns, labels, groups }
    const bare = await train(data, p, createCpuBackend)
    const clock = new StageClock()
    const wrapped = await train(
      data,
      p,
      timedBackend(createCpuBackend, clock, async () => {}),
    )
    expect(wrapped.trees.map(x => Array.from(x.splitCondition))).toEqual(
      bare.trees.map(x => Array.from(x.splitCondition)),
    )
    expect(clock.rounds).toHaveLength(2)
    for (const r of clock.rounds) {
      expect(r.hostGradientMs).toBeGreaterThan(0)
      expect(r.hostGradientMs).toBeLessThanOrEqual(r.ms['gradient+quantise'])
    }
  })

  test('RowCounter moves rows like the partition: bin ≤ splitBin left, missing by default direction', () => {
    const col = Float32Array.of(0, 1, 2, 3, NaN, 5, 6, NaN)
    const cuts = buildCuts([col], 8)
    const binned = binMatrix([col], cuts)
    expect(binned.missOff[0]).toBe(1)
    const rc = new RowCounter({ binned })
    expect(rc.count([0])).toBe(8)
    const split = { gain: 1, feature: 0, splitBin: 2, defaultLeft: true, leftG: 0, leftH: 1, rightG: 0, rightH: 1 }
    rc.apply([{ nid: 0, left: 1, right: 2, split }])
    // Values 0, 1, 2 are bins 0..2 (one value per bin here) plus the two missing rows.
    expect(rc.count([1])).toBe(5)
    expect(rc.count([2])).toBe(3)
    expect(rc.count([1, 2])).toBe(8)
    rc.reset()
    expect(rc.count([0])).toBe(8)
  })
})

describe('gbdt bench: rows', () => {
  const ceiling = makeRow(ctx, {
    workload: 'atomic',
    metric: 'throughput',
    unit: 'M ops/s',
    samples: [{ wallMs: 1000 }],
    fromSeconds: s => 100 / s,
  })

  function rounds(): ReturnType<typeof emptyRound>[] {
    return [1, 2].map(k => {
      const r = emptyRound()
      r.ms.histogram = 100 * k
      r.ms.evaluate = 10
      r.builtRows = 1000 * k
      return r
    })
  }

  test('round row skips the warm-up round and carries the XGBoost ratio (xgboost s / ours s)', () => {
    const rows = trainingRows(ctx, {
      n: 1000,
      F: 10,
      backend: 'gpu',
      auc: 0.81,
      ends: [0, 500, 900, 1500],
      rounds: rounds(),
      ceiling,
      peer,
    })
    const round = rows[0]
    expect(round.unit).toBe('s')
    expect(round.repeats).toBe(3)
    expect(round.value).toBeCloseTo(0.5)
    expect(round.ratio).toBeCloseTo(0.2 / 0.5)
    expect(rows[1].workload).toMatch(/^xgboost 1.7.4 hist nthread=2 n=1000/)
    expect(rows.filter(r => r.workload.includes('stage'))).toHaveLength(GBDT_STAGES.length)
  })

  test('histogram row: each round’s built rows × F / its histogram time, against the ceiling', () => {
    const rows = trainingRows(ctx, {
      n: 1000,
      F: 10,
      backend: 'gpu',
      auc: 0.8,
      ends: [0, 1],
      rounds: rounds(),
      ceiling,
    })
    const hist = rows.find(r => r.workload.startsWith('histogram in training'))!
    // Both rounds: 1000·k rows × 10 features in 100·k ms = 0.1 M updates/s.
    expect(hist.min).toBeCloseTo(0.1)
    expect(hist.max).toBeCloseTo(0.1)
    expect(hist.ratio).toBeCloseTo(0.1 / 100)
    expect(rows.some(r => r.workload.startsWith('xgboost'))).toBe(false)
  })

  test('peerRow uses rounds after the first; profileRounds stays small', () => {
    expect(peerRow(ctx, peer)).toMatchObject({ value: 0.2, min: 0.1, max: 0.3, repeats: 3, unit: 's' })
    expect(profileRounds(10)).toBe(3)
    expect(profileRounds(2)).toBe(1)
  })

  test('parsePeerLine takes the last JSON line and names a bad one', () => {
    expect(parsePeerLine(`warning\n${JSON.stringify(peer)}\n`).roundSeconds).toEqual(peer.roundSeconds)
    expect(() => parsePeerLine('Traceback: boom')).toThrow(/gbdt peer: expected a JSON line/)
    expect(() => parsePeerLine('{"rows": 1}')).toThrow(/roundSeconds/)
  })

  test('qualityMarkdown flags a |Δ| above 0.003', () => {
    const base = {
      table: 't',
      label: 'y',
      rowsTrain: 8,
      rowsValid: 2,
      features: 3,
      categorical: 1,
      oursSeconds: 1,
      xgboostVersion: '1.7.4',
      oursBest: [0.8, 3] as [number, number],
      xgboostBest: [0.81, 4] as [number, number],
    }
    const md = qualityMarkdown([
      { ...base, ours: 0.8, xgboost: 0.801, delta: -0.001 },
      { ...base, table: 'u', ours: 0.8, xgboost: 0.81, delta: -0.01 },
    ])
    expect(md).toMatch(/\| t \(y\) .*\| -0\.00100 \| yes \|/)
    expect(md).toMatch(/\| u \(y\) .*\| -0\.01000 \| NO \| 0\.80000 \(3\) \/ 0\.81000 \(4\) \|/)
    expect(best([0.5, 0.7, 0.6])).toEqual([0.7, 2])
  })
})

describe('gbdt bench: quantisation rows', () => {
  test('sum of sketch and bin against QuantileDMatrix (ratio = XGBoost s / ours), parts and first round', () => {
    const rows = quantiseRows(ctx, {
      n: 1000,
      F: 28,
      sketchMs: 3000,
      binMs: 1000,
      workersMs: 2000,
      firstRoundMs: 6500,
      peer: { ...peer, quantileSeconds: [2.5, 2, 3] },
    })
    expect(rows.map(r => r.workload)).toEqual([
      'sketch+cuts+bin (CPU) n=1000 f=28',
      '  sketch+cuts (CPU) n=1000 f=28',
      '  bin (CPU) n=1000 f=28',
      'xgboost 1.7.4 QuantileDMatrix nthread=2 n=1000 max_bin=256',
      'sketch+cuts+bin (2 loader workers) n=1000 f=28',
      'columns → first round (cuts, bin, setup, round 0) n=1000 f=28',
    ])
    expect(rows.map(r => r.value)).toEqual([4, 3, 1, 2.5, 2, 6.5])
    expect(rows[0].peer).toBe(rows[3].workload)
    expect(rows[0].ratio).toBeCloseTo(2.5 / 4, 12)
    expect(rows[4].ratio).toBeCloseTo(2.5 / 2, 12)
    // Without the peer's timings: our rows only, no ratio.
    const alone = quantiseRows(ctx, { n: 1000, F: 28, sketchMs: 3000, binMs: 1000, peer })
    expect(alone.map(r => r.value)).toEqual([4, 3, 1])
    expect(alone[0].ratio).toBeUndefined()
  })
})
