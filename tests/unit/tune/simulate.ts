/**
 * Drives a Strategy like the scheduler would, with `parallel` workers and a deterministic clock:
 * a trial advances one resource unit per time unit, reporting at every unit; the earliest next
 * step runs first (ties by id). Logs every call and answer, for replay tests.
 */
import type { Strategy, TrialConfig, TrialRequest } from '../../../src/tune/types.ts'

/** One call and its answer. */
export type Call =
  | ['n', number | 'wait' | 'done']
  | ['r', number, number, number, 'continue' | 'stop']
  | ['c', number, 'completed' | 'stopped' | 'failed', number | undefined]

/** Metric of `config` after `resource` units, or 'fail' to make the trial fail there. */
export type Objective = (config: TrialConfig, resource: number, req: TrialRequest) => number | 'fail'

/** What a simulation saw. */
export interface SimResult {
  requests: TrialRequest[]
  calls: Call[]
  ended: Map<number, { status: 'completed' | 'stopped' | 'failed'; metric?: number; reached: number }>
}

interface Running {
  req: TrialRequest
  k: number
  start: number
}

/** Runs `s` to 'done'. */
export function simulate(s: Strategy, objective: Objective, parallel = 1): SimResult {
  const out: SimResult = { requests: [], calls: [], ended: new Map() }
  const running: Running[] = []
  let time = 0
  for (let guard = 0; guard < 1_000_000; guard++) {
    let answer: TrialRequest | 'wait' | 'done' = 'wait'
    while (running.length < parallel) {
      answer = s.next()
      out.calls.push(['n', typeof answer === 'string' ? answer : answer.id])
      if (typeof answer === 'string') break
      out.requests.push(answer)
      running.push({ req: answer, k: 0, start: time })
    }
    if (running.length === 0) {
      if (answer !== 'done') throw new Error(`strategy answered ${answer} with nothing running`)
      return out
    }
    running.sort((a, b) => a.start + a.k - (b.start + b.k) || a.req.id - b.req.id)
    const t = running[0]
    t.k++
    time = t.start + t.k
    const m = objective(t.req.config, t.k, t.req)
    const end = (status: 'completed' | 'stopped' | 'failed', metric?: number): void => {
      s.complete(t.req.id, status, metric)
      out.calls.push(['c', t.req.id, status, metric])
      out.ended.set(t.req.id, { status, metric, reached: t.k })
      running.shift()
    }
    if (m === 'fail') {
      end('failed')
      continue
    }
    const r = s.report(t.req.id, t.k, m)
    out.calls.push(['r', t.req.id, t.k, m, r])
    if (r === 'stop') end('stopped', m)
    else if (t.k >= t.req.resource) end('completed', m)
  }
  throw new Error('simulation did not end')
}

/** Feeds `calls` to a fresh strategy and returns the answers it gives (to compare with the log). */
export function replay(s: Strategy, calls: readonly Call[]): Call[] {
  return calls.map((c): Call => {
    if (c[0] === 'n') {
      const a = s.next()
      return ['n', typeof a === 'string' ? a : a.id]
    }
    if (c[0] === 'r') return ['r', c[1], c[2], c[3], s.report(c[1], c[2], c[3])]
    s.complete(c[1], c[2], c[3])
    return c
  })
}
