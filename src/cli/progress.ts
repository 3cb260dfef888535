/**
 * Progress of long CLI work (loading, binning, rounds, epochs, trials). Piped (no `io.status`),
 * plain stderr lines exactly as each command prints them; on a terminal, one updating line with
 * the elapsed time and an estimate of what is left, and the lines worth keeping printed above it:
 * each stage with how long it took, and the last step when the work ends.
 */
import type { CliIo } from './io.ts'

/** The progress of one command. */
export interface Progress {
  /** A stage began (planning, loading, quantising …); `fraction` (0–1) when the stage knows it. */
  stage(message: string, fraction?: number): void
  /**
   * `done` of `total` steps (rounds, evaluations, trials; total undefined when unknown) are done;
   * `text` describes them; `plain` is the line printed when piped (undefined: none).
   */
  step(done: number, total: number | undefined, text: string, plain?: string): void
  /** A line to keep on a terminal and to print when piped (a finished trial, say). */
  line(text: string): void
  /** The work ended: the terminal's progress line is cleared, its last step kept as a line. */
  end(): void
}

/** How often the terminal line's clock is redrawn while nothing else happens. */
const TICK_MS = 500

/** Progress over `io`; `now` in milliseconds and the redraw period (0: none) are injectable for tests. */
export function progress(io: CliIo, now: () => number = () => performance.now(), tickMs = TICK_MS): Progress {
  const status = io.status
  if (!status) {
    return {
      stage: (message, fraction) => {
        if (fraction === undefined || fraction >= 1) io.err(message)
      },
      step: (_done, _total, _text, plain) => {
        if (plain !== undefined) io.err(plain)
      },
      line: text => io.err(text),
      end: () => {},
    }
  }
  let stage: { message: string; at: number; fraction?: number } | undefined
  let steps: { start: number; done: number; total?: number; text: string } | undefined
  let lastEvent = now()
  let timer: ReturnType<typeof setInterval> | undefined

  const draw = () => {
    const t = now()
    if (stage) {
      const share = stage.fraction === undefined ? '' : ` ${Math.floor(stage.fraction * 100)}%`
      status(`${stage.message}${share} · ${seconds(t - stage.at)}${left(t - stage.at, stage.fraction ?? 0, 1)}`)
    } else if (steps) {
      const of = steps.total === undefined ? '' : left(t - steps.start, steps.done, steps.total)
      status(`${steps.text} · ${seconds(t - steps.start)}${of}`)
    } else status(undefined)
  }
  const closeStage = () => {
    if (!stage) return
    io.err(`${stage.message} (${seconds(now() - stage.at)})`)
    stage = undefined
  }
  const tick = () => {
    if (timer === undefined && tickMs > 0) {
      timer = setInterval(draw, tickMs)
      // A forgotten end() must not keep the process alive.
      ;(timer as { unref?: () => void }).unref?.()
    }
    draw()
  }
  return {
    stage: (message, fraction) => {
      // Updates of one stage: the same message, or a fraction after a fraction (text with counts).
      const same = stage && (stage.message === message || (fraction !== undefined && stage.fraction !== undefined))
      if (!same) {
        closeStage()
        stage = { message, at: now() }
      }
      if (stage) Object.assign(stage, { message, fraction })
      lastEvent = now()
      // A stage that says it is done ends here; the steps' line (a sweep's trials) comes back.
      if (fraction !== undefined && fraction >= 1) closeStage()
      tick()
    },
    step: (done, total, text) => {
      closeStage()
      // Steps are timed from the end of the stage before them: the rate counts only stepping.
      steps = { start: steps?.start ?? lastEvent, done, total, text }
      tick()
    },
    line: text => io.err(text),
    end: () => {
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      closeStage()
      status(undefined)
      if (steps) io.err(`${steps.text} (${seconds(now() - steps.start)})`)
      steps = undefined
    },
  }
}

/** ", ~N s left" from the time `spent` on `done` of `total`; empty before the first one is done. */
function left(spentMs: number, done: number, total: number): string {
  if (!(done > 0) || done >= total) return ''
  return `, ~${seconds((spentMs * (total - done)) / done)} left`
}

/** A duration for people: "4.2 s", "3 min 20 s", "1 h 05 min". */
export function seconds(ms: number): string {
  const s = Math.max(0, ms) / 1000
  if (s < 60) return `${s.toFixed(1)} s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m} min ${String(Math.floor(s - m * 60)).padStart(2, '0')} s`
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, '0')} min`
}
