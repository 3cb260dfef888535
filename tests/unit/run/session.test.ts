/**
 * The driver's device session (src/run/session.ts) with a fake family fit in Node: mode 'own'
 * rebuilds a lost device under the family's policy ('rerun' from the start, 'resume' from the last
 * checkpoint) and gives up after maxRecoveries with the family's error; mode 'slot' trains once on
 * the caller's device and never rebuilds it; mode 'rank' trains on the family's rank model. The
 * driver's first device, opened ahead and warmed while the rows load (openAhead), is the first
 * attempt's, a rebuild opens a fresh one, and one never handed out is destroyed. Devices are
 * fakes whose `lost` the test resolves (a real GPUDevice.lost resolves the same way).
 */
import { describe, expect, it } from 'vitest'
import { DeviceLostError } from '../../../src/run/device-loss.ts'
import type { FamilyFit } from '../../../src/run/family.ts'
import { fitOnSession, openAhead, type SessionDevice } from '../../../src/run/session.ts'
import type { RankContext } from '../../../src/ranks/types.ts'

/** A device the test can lose; `destroyed` counts destroy() calls. */
interface FakeDevice extends SessionDevice {
  lose(): void
  destroyed: number
}

function fakeDevice(name: string): FakeDevice {
  let lose = (): void => {}
  const lost = new Promise<{ reason: string; message: string }>(r => {
    lose = () => r({ reason: 'destroyed', message: name })
  })
  const d: FakeDevice = {
    device: {
      lost,
      destroy: () => {
        d.destroyed++
      },
    } as unknown as GPUDevice,
    cache: { pending: 3 } as SessionDevice['cache'],
    adapter: name,
    lose: () => lose(),
    destroyed: 0,
  }
  return d
}

/** The fit's model on one device: which device, and the step it starts from. */
interface Model {
  adapter: string
  device?: FakeDevice
  start: number
}

/**
 * A fit of `steps` steps that, on device `loseOn` at step `loseAt`, loses its device and fails.
 * Under 'resume' on a losable device it checkpoints every `every` steps (C = the step reached).
 */
function fakeFit(o: { steps: number; loseOn?: string; loseAt?: number; every?: number; maxRecoveries?: number }) {
  const log: string[] = []
  const fit: FamilyFit<Model, number, number[], { steps: number[]; adapter: string }> = {
    maxRecoveries: o.maxRecoveries ?? 1,
    async open(device, from) {
      log.push(`open ${device?.adapter ?? 'cpu'} from ${from ?? 'start'}`)
      return {
        backend: { adapter: device?.adapter ?? 'cpu', device: device as FakeDevice, start: from ?? 0 },
        dispose: () => log.push(`dispose ${device?.adapter ?? 'cpu'}`),
      }
    },
    async openRank(rank) {
      return { backend: { adapter: 'rank', start: 0 }, adapter: `rank device × ${rank.world} ranks` }
    },
    async run(session, from, watch) {
      const done: number[] = []
      const start = from ?? 0
      for (let step = start; step < o.steps; step++) {
        await Promise.resolve()
        if (session.backend.adapter === o.loseOn && step === o.loseAt) {
          session.backend.device?.lose()
          await watch.settled()
          throw new Error(`step ${step}: device gone`)
        }
        done.push(step)
        if (o.every && session.lost && (step + 1) % o.every === 0 && step + 1 < o.steps) return { checkpoint: step + 1 }
      }
      return { done: done }
    },
    async result(session, steps) {
      return { steps, adapter: session.adapter }
    },
    onRecover: (from, reason) => log.push(`recover from ${from ?? 'start'}: ${reason}`),
    exhausted: (reason, losses, kept) => new DeviceLostError(`lost (${reason}) ${losses} times, kept ${kept ?? 0}`),
  }
  return { fit, log }
}

/** Fake devices named gpu 0, gpu 1, … in order of opening. */
function devices(): { open: () => Promise<FakeDevice>; opened: FakeDevice[] } {
  const opened: FakeDevice[] = []
  return {
    opened,
    open: async () => {
      const d = fakeDevice(`gpu ${opened.length}`)
      opened.push(d)
      return d
    },
  }
}

describe('the driver session', () => {
  it("'own', policy rerun: a lost device is rebuilt and the run redone from the start", async () => {
    const { fit, log } = fakeFit({ steps: 5, loseOn: 'gpu 0', loseAt: 2 })
    const d = devices()
    const out = await fitOnSession(fit, { mode: 'own', backend: 'gpu', openDevice: d.open }, 'rerun')
    expect(out.recoveries).toBe(1)
    expect(out.trained).toEqual({ steps: [0, 1, 2, 3, 4], adapter: 'gpu 1' })
    expect(log).toEqual([
      'open gpu 0 from start',
      'dispose gpu 0',
      'recover from start: destroyed: gpu 0',
      'open gpu 1 from start',
      'dispose gpu 1',
    ])
    expect(d.opened.map(x => x.destroyed)).toEqual([1, 1])
  })

  it("'own', policy resume: a lost device is rebuilt and the run goes on from the last checkpoint", async () => {
    const { fit, log } = fakeFit({ steps: 6, loseOn: 'gpu 0', loseAt: 3, every: 2 })
    const d = devices()
    const out = await fitOnSession(fit, { mode: 'own', backend: 'gpu', openDevice: d.open }, 'resume')
    expect(out.recoveries).toBe(1)
    // Steps 2… after the checkpoint at 2 were redone on gpu 1; the last segment's steps come back.
    expect(out.trained).toEqual({ steps: [4, 5], adapter: 'gpu 1' })
    expect(log).toEqual([
      'open gpu 0 from start',
      'dispose gpu 0',
      'recover from 2: destroyed: gpu 0',
      'open gpu 1 from 2',
      'dispose gpu 1',
    ])
  })

  it("'own': after maxRecoveries rebuilds, the family's error naming what was kept", async () => {
    const { fit } = fakeFit({ steps: 6, loseOn: 'gpu 0', loseAt: 3, every: 2, maxRecoveries: 0 })
    const d = devices()
    const err = await fitOnSession(fit, { mode: 'own', backend: 'gpu', openDevice: d.open }, 'resume').catch(e => e)
    expect(err).toBeInstanceOf(DeviceLostError)
    expect((err as Error).message).toBe('lost (destroyed: gpu 0) 1 times, kept 2')
    expect(d.opened).toHaveLength(1)
  })

  it("'own' on the CPU: no device opened, the CPU reference's adapter", async () => {
    const { fit } = fakeFit({ steps: 3 })
    const out = await fitOnSession(fit, { mode: 'own', backend: 'cpu' }, 'rerun')
    expect(out).toEqual({ trained: { steps: [0, 1, 2], adapter: 'cpu (reference backend)' }, recoveries: 0 })
  })

  it("'slot': one attempt on the caller's device, never rebuilt, the device left to its owner", async () => {
    const { fit, log } = fakeFit({ steps: 4, loseOn: 'slot gpu', loseAt: 1, every: 1 })
    const device = fakeDevice('slot gpu')
    const err = await fitOnSession(fit, { mode: 'slot', device }, 'resume').catch(e => e)
    expect((err as Error).message).toBe('step 1: device gone')
    expect(log).toEqual(['open slot gpu from start', 'dispose slot gpu'])
    expect(device.destroyed).toBe(0)
    // Not lost: trains to the end in one segment (no checkpoints without a device watch), on the slot's adapter.
    const ok = fakeFit({ steps: 4, every: 1 })
    const out = await fitOnSession(ok.fit, { mode: 'slot', device: fakeDevice('slot gpu') }, 'resume')
    expect(out).toEqual({ trained: { steps: [0, 1, 2, 3], adapter: 'slot gpu' }, recoveries: 0 })
  })

  it("'rank': the family's rank model and its adapter label", async () => {
    const { fit } = fakeFit({ steps: 2 })
    const rank = { rank: 0, world: 2 } as RankContext
    const out = await fitOnSession(fit, { mode: 'rank', rank }, 'rerun')
    expect(out.trained).toEqual({ steps: [0, 1], adapter: 'rank device × 2 ranks' })
  })

  it("'own' opened ahead: the first attempt waits for the warm-up and gets that device; a rebuild opens a fresh one", async () => {
    const { fit, log } = fakeFit({ steps: 5, loseOn: 'gpu 0', loseAt: 2 })
    const d = devices()
    let finishWarm = (): void => {}
    const warmed: string[] = [],
      waits: Array<[number, number, boolean]> = []
    const ahead = openAhead(
      'gpu',
      device => {
        warmed.push(device.adapter)
        return new Promise<void>(r => {
          finishWarm = r
        })
      },
      (done, total, waitedMs) => waits.push([done, total, waitedMs !== undefined]),
      d.open,
    )
    // Opened at once (while the rows load), before fitting asks.
    await Promise.resolve()
    expect(d.opened).toHaveLength(1)
    const fitting = fitOnSession(fit, { mode: 'own', backend: 'gpu', openDevice: k => ahead.open(k) }, 'rerun')
    await new Promise(r => setTimeout(r, 0))
    expect(log).toEqual([]) // the first attempt waits for the warm-up
    expect(waits).toEqual([[0, 3, false]]) // …and says how many pipelines are compiling
    finishWarm()
    const out = await fitting
    expect(waits.at(-1)).toEqual([3, 3, true]) // …and, once they are, how long it waited
    ahead.release() // handed out: the session disposed it, release leaves it alone
    expect(warmed).toEqual(['gpu 0'])
    expect(out.trained).toEqual({ steps: [0, 1, 2, 3, 4], adapter: 'gpu 1' })
    expect(log[0]).toBe('open gpu 0 from start')
    expect(d.opened.map(x => x.destroyed)).toEqual([1, 1])
  })

  it("'own' opened ahead: a device never handed out (the load failed) is destroyed; a failed warm-up is ignored", async () => {
    const d = devices()
    const ahead = openAhead('gpu', async () => {}, undefined, d.open)
    ahead.release()
    ahead.release()
    await new Promise(r => setTimeout(r, 0))
    expect(d.opened.map(x => x.destroyed)).toEqual([1])
    const failing = openAhead(
      'gpu',
      async () => {
        throw new Error('compile failed')
      },
      undefined,
      devices().open,
    )
    const device = await failing.open('gpu')
    expect(device?.adapter).toBe('gpu 0')
    failing.release()
    expect((device as FakeDevice).destroyed).toBe(0)
  })

  it("'own' opened ahead on the CPU: nothing opened or warmed", async () => {
    let warms = 0
    const ahead = openAhead('cpu', async () => {
      warms++
    })
    expect(await ahead.open('cpu')).toBeUndefined()
    expect(warms).toBe(0)
  })
})
