/**
 * The CLI's progress: plain lines when piped, one updating line with an estimate on a terminal
 * (src/cli/progress.ts), and the terminal stream that draws it (io.ts statusLine / defaultIo).
 */
import { describe, expect, it } from 'vitest'
import { defaultIo, safeIo, statusLine, type CliIo } from '../../../src/cli/io.ts'
import { progress, seconds } from '../../../src/cli/progress.ts'

/** An io that records err lines and status updates in order. */
function recorder(tty: boolean): { io: CliIo; log: string[] } {
  const log: string[] = []
  const io: CliIo = { out: l => log.push(`out:${l}`), err: l => log.push(`err:${l}`) }
  if (tty) io.status = l => log.push(`status:${l ?? '<clear>'}`)
  return { io, log }
}

describe('progress when piped', () => {
  it('prints the plain lines and the finished stages only, never a status', () => {
    const { io, log } = recorder(false)
    let t = 0
    const p = progress(io, () => t, 0)
    p.stage('train: loading')
    p.stage('sweep: reading', 0.5)
    p.stage('sweep: reading', 1)
    t = 1000
    p.step(1, 10, '[1/10] auc=0.5', '[1/10] auc=0.5 (1.0 s)')
    p.step(2, 10, '[2/10] auc=0.6')
    p.line('[trial 0] finished')
    p.end()
    expect(log).toEqual([
      'err:train: loading',
      'err:sweep: reading',
      'err:[1/10] auc=0.5 (1.0 s)',
      'err:[trial 0] finished',
    ])
  })
})

describe('progress on a terminal', () => {
  it('shows one line with elapsed time and the estimate, keeps stages with their duration', () => {
    const { io, log } = recorder(true)
    let t = 0
    const p = progress(io, () => t, 0)
    p.stage('train: loading')
    t = 2000
    p.stage('train: quantising')
    // 2 of 10 rounds took 4.5 s since the last stage began: the 8 left take 18 s.
    t = 6500
    p.step(2, 10, '[2/10] auc=0.7')
    t = 8500
    p.step(3, 10, '[3/10] auc=0.71')
    p.end()
    expect(log).toEqual([
      'status:train: loading · 0.0 s',
      'err:train: loading (2.0 s)',
      'status:train: quantising · 0.0 s',
      'err:train: quantising (4.5 s)',
      'status:[2/10] auc=0.7 · 4.5 s, ~18.0 s left',
      'status:[3/10] auc=0.71 · 6.5 s, ~15.2 s left',
      'status:<clear>',
      'err:[3/10] auc=0.71 (6.5 s)',
    ])
  })

  it('estimates a stage from its fraction and gives no estimate without a total', () => {
    const { io, log } = recorder(true)
    let t = 0
    const p = progress(io, () => t, 0)
    p.stage('sweep: reading', 0)
    t = 3000
    p.stage('sweep: reading', 0.25)
    t = 4000
    p.step(1, undefined, 'sweep: 1 trials done')
    p.end()
    expect(log.slice(0, 4)).toEqual([
      'status:sweep: reading 0% · 0.0 s',
      'status:sweep: reading 25% · 3.0 s, ~9.0 s left',
      'err:sweep: reading (4.0 s)',
      'status:sweep: 1 trials done · 1.0 s',
    ])
  })
})

describe('progress of a sweep on a terminal', () => {
  it('takes counted updates as one stage, ends a stage at fraction 1 and returns to the trials', () => {
    const { io, log } = recorder(true)
    let t = 0
    const p = progress(io, () => t, 0)
    p.stage('sweep: loading: 0 of 10 rows', 0)
    t = 1000
    p.stage('sweep: loading: 5 of 10 rows', 0.5)
    t = 2000
    p.stage('sweep: loading: 10 of 10 rows', 1)
    t = 3000
    p.step(0, 4, 'sweep: 0/4 trials done')
    p.stage('sweep: quantising', 1)
    t = 5000
    p.line('[trial 0] completed')
    p.step(1, 4, 'sweep: 1/4 trials done')
    p.end()
    expect(log).toEqual([
      'status:sweep: loading: 0 of 10 rows 0% · 0.0 s',
      'status:sweep: loading: 5 of 10 rows 50% · 1.0 s, ~1.0 s left',
      'err:sweep: loading: 10 of 10 rows (2.0 s)',
      'status:<clear>',
      'status:sweep: 0/4 trials done · 1.0 s',
      'err:sweep: quantising (0.0 s)',
      'status:sweep: 0/4 trials done · 1.0 s',
      'err:[trial 0] completed',
      'status:sweep: 1/4 trials done · 3.0 s, ~9.0 s left',
      'status:<clear>',
      'err:sweep: 1/4 trials done (3.0 s)',
    ])
  })
})

describe('the terminal stream', () => {
  /** A fake TTY stream that keeps what was written. */
  function tty(columns = 40): { text: string; write(s: string): void; isTTY: boolean; columns: number } {
    return {
      text: '',
      isTTY: true,
      columns,
      write(s: string) {
        this.text += s
      },
    }
  }

  it('redraws the status in place, prints messages above it and cuts it to the width', () => {
    const s = tty(30)
    const io = statusLine(s)
    io.status('x'.repeat(50))
    io.err('a message')
    io.status(undefined)
    const line = `${'x'.repeat(28)}…`
    expect(s.text).toBe(`\r\u001b[2K${line}\r\u001b[2Ka message\n${line}\r\u001b[2K`)
  })

  it('has a status only on a terminal that is not dumb, and safeIo escapes what it shows', () => {
    expect(defaultIo({ write: () => true, isTTY: false }).status).toBeUndefined()
    expect(defaultIo(tty(), { TERM: 'dumb' }).status).toBeUndefined()
    const s = tty(200)
    const io = safeIo(defaultIo(s, { TERM: 'xterm' }))
    io.status?.('col\u001b]0;title\u0007 [1/2]')
    expect(s.text).toBe('\r\u001b[2Kcol\\u001b]0;title\\u0007 [1/2]')
  })
})

describe('seconds', () => {
  it('writes seconds, minutes and hours', () => {
    expect([seconds(4210), seconds(119_600), seconds(3_900_000), seconds(-5)]).toEqual([
      '4.2 s',
      '1 min 59 s',
      '1 h 05 min',
      '0.0 s',
    ])
  })
})
