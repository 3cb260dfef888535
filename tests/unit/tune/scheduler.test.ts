/**
 * The sweep scheduler over a fake strategy (n trials at resource r, then the best one promoted
 * to R) and a fake runner: parallelism, failures, device loss, event order, stop and resume.
 */
import { describe, expect, it } from 'vitest'
import { runSweep, type SlotFactory, type TrialSlot } from '../../../src/sweep/scheduler.ts'
import { MemoryStore } from '../../../src/sweep/store-memory.ts'
import type {
  Bracket,
  Strategy,
  SweepConfig,
  SweepEvent,
  SweepState,
  TrialRequest,
  TrialRunner,
} from '../../../src/tune/types.ts'

/** n configurations x = 0 … n−1 at resource r; once all ended, the best promoted to R. */
class FakeStrategy implements Strategy {
  readonly name = 'hyperband' as const
  private issued = 0
  private ended = new Map<number, number | undefined>()
  private promoted = false
  constructor(
    private readonly n: number,
    private readonly r = 2,
    private readonly R = 4,
  ) {}
  next(): TrialRequest | 'wait' | 'done' {
    if (this.issued < this.n)
      return { id: this.issued, config: { x: this.issued++ }, resource: this.r, bracket: 0, rung: 0 }
    if (this.ended.size < this.n) return 'wait'
    if (this.promoted) return this.ended.size > this.n ? 'done' : 'wait'
    this.promoted = true
    const [best] = [...this.ended].filter(([, m]) => m !== undefined).sort((a, b) => b[1]! - a[1]!)[0]
    return { id: this.n, config: { x: best }, resource: this.R, bracket: 0, rung: 1, promotedFrom: best }
  }
  report(_id: number, resource: number, metric: number): 'continue' | 'stop' {
    return resource >= 1 && metric < 0.1 ? 'stop' : 'continue'
  }
  complete(id: number, _status: string, metric?: number): void {
    this.ended.set(id, metric)
  }
  plan(): Bracket[] {
    return [
      {
        index: 0,
        rungs: [
          { n: this.n, resource: this.r },
          { n: 1, resource: this.R },
        ],
      },
    ]
  }
}

/** MemoryStore counting its writes. */
class Store extends MemoryStore {
  puts = 0
  override async put(s: SweepState) {
    this.puts++
    return super.put(s)
  }
}

/** metric of x at resource k: (x + k) / 10; x = 2 fails; x = 0 stops at its first report. */
class FakeRunner implements TrialRunner {
  running = 0
  maxRunning = 0
  calls: number[] = []
  async run(req: TrialRequest, report: (r: number, m: number) => 'continue' | 'stop', signal: AbortSignal) {
    this.calls.push(req.id)
    this.running++
    this.maxRunning = Math.max(this.maxRunning, this.running)
    try {
      for (let k = 1; k <= req.resource; k++) {
        await new Promise(r => setTimeout(r, 2))
        if (signal.aborted) break
        if (req.config.x === 2) throw new Error('x = 2 diverged')
        if (report(k, (Number(req.config.x) + k - 1) / 10) === 'stop') break
      }
      return { gpuSeconds: 0.5, artifacts: { model: `model ${req.id}` } }
    } finally {
      this.running--
    }
  }
}

const CONFIG: SweepConfig = { model: 'gbdt', table: 'http://x/t/', label: 'y', strategy: 'hyperband', parallel: 3 }

describe('runSweep', () => {
  it('runs every trial with at most P in parallel, records failure and early stop, finds the best', async () => {
    const runner = new FakeRunner(),
      store = new Store()
    const s = await runSweep(CONFIG, new FakeStrategy(6), runner, store)
    expect(runner.maxRunning).toBe(3)
    expect(s.status).toBe('finished')
    expect(s.trials.map(t => t.status)).toEqual([
      'stopped',
      'completed',
      'failed',
      'completed',
      'completed',
      'completed',
      'completed',
    ])
    expect(s.trials[2].error).toBe('x = 2 diverged')
    expect(s.trials[2].metric).toBeUndefined()
    expect(s.trials[6]).toMatchObject({ promotedFrom: 5, resource: 4, config: { x: 5 } })
    expect(s.trials[6].curve.map(p => p.resource)).toEqual([1, 2, 3, 4])
    expect(s.best).toEqual({ trial: 6, params: { x: 5 }, metric: 0.8 })
    expect(s.stoppedEarly).toBe(1)
    expect(s.gpuSeconds).toBe(0.5 * 6) // the failed trial reports no GPU time
    expect(await store.get(s.id)).toMatchObject({ status: 'finished', trials: s.trials })
    expect(store.puts).toBeGreaterThan(1)
    expect(await store.getArtifacts(s.id, 6)).toEqual({ model: 'model 6' })
  })

  it('emits per trial: running first, then reports, then the end; the last event is the final state', async () => {
    const events: SweepEvent[] = []
    const _s = await runSweep({ ...CONFIG, parallel: 1 }, new FakeStrategy(3), new FakeRunner(), new Store(), e =>
      events.push(e),
    )
    const t1 = events
      .filter(e => e.kind === 'trial' && e.trial.id === 1)
      .map(e => (e as { trial: { status: string; curve: unknown[] } }).trial)
    expect(t1.map(t => `${t.status}:${t.curve.length}`)).toEqual(['running:0', 'running:1', 'running:2', 'completed:2'])
    const last = events[events.length - 1]
    expect(last.kind === 'state' && last.state.status).toBe('finished')
    const starts = events
      .filter(e => e.kind === 'trial' && e.trial.status === 'running' && e.trial.curve.length === 0)
      .map(e => (e as { trial: { id: number } }).trial.id)
    expect(starts).toEqual([0, 1, 2, 3])
  })

  it('a lost device fails its trial with the cause, the slot gets a new device and the sweep goes on', async () => {
    const made: number[] = []
    const runner = new FakeRunner()
    const slots: SlotFactory = async index => {
      made.push(index)
      let lose!: (cause: string) => void
      const lost = new Promise<string>(r => {
        lose = r
      })
      const wrapped: TrialRunner = {
        run: (req, report, signal) => {
          if (req.id === 1 && made.filter(i => i === index).length === 1)
            setTimeout(() => lose('GPU device lost (destroyed): test'), 1)
          return runner.run(req, report, signal)
        },
      }
      return { runner: wrapped, lost, dispose: () => {} } satisfies TrialSlot
    }
    const s = await runSweep({ ...CONFIG, parallel: 2 }, new FakeStrategy(4), slots, new Store())
    expect(s.status).toBe('finished')
    expect(s.trials[1]).toMatchObject({ status: 'failed', error: 'GPU device lost (destroyed): test' })
    expect(s.trials.map(t => t.status)).toEqual(['stopped', 'failed', 'failed', 'completed', 'completed'])
    expect(made.length).toBe(3) // two slots, one replaced
  })

  it('stop keeps finished trials; resume re-runs only the unfinished ones and ends as an uninterrupted run', async () => {
    const store = new Store(),
      runner = new FakeRunner(),
      ac = new AbortController()
    let ended = 0
    const stopped = await runSweep(
      { ...CONFIG, parallel: 2 },
      new FakeStrategy(6),
      runner,
      store,
      e => {
        if (e.kind === 'trial' && e.trial.endedAt && e.trial.status !== 'running' && ++ended === 3) ac.abort()
      },
      ac.signal,
    )
    expect(stopped.status).toBe('stopped')
    const done = stopped.trials.filter(t => t.status !== 'pending').map(t => t.id)
    const pending = stopped.trials.filter(t => t.status === 'pending').map(t => t.id)
    expect(done.length).toBeGreaterThanOrEqual(2)
    expect(pending.length).toBeGreaterThan(0)
    expect(stopped.trials.filter(t => t.status === 'pending').every(t => t.curve.length === 0)).toBe(true)
    const again = new FakeRunner()
    const resumed = await runSweep((await store.get(stopped.id))!, new FakeStrategy(6), again, store)
    expect(again.calls.filter(id => done.includes(id))).toEqual([])
    expect(again.calls.slice(0, pending.length)).toEqual(pending)
    const fresh = await runSweep(CONFIG, new FakeStrategy(6), new FakeRunner(), new Store())
    expect(resumed.trials.map(t => [t.id, t.status, t.metric])).toEqual(
      fresh.trials.map(t => [t.id, t.status, t.metric]),
    )
    expect(resumed.status).toBe('finished')
    expect(resumed.wallSeconds).toBeGreaterThan(stopped.wallSeconds)
  })

  it('a resume whose strategy answers differently is refused naming the trial', async () => {
    const store = new Store()
    const s = await runSweep(CONFIG, new FakeStrategy(3), new FakeRunner(), store)
    await expect(runSweep(s, new FakeStrategy(2), new FakeRunner(), store)).rejects.toThrow(
      /resume: the strategy (answered 'wait' where|issued trial \d+ .* where) the stored sweep/,
    )
  })
})
