/**
 * The single run's progress and Stop on a real GBDT run in the page (the vite-served marketing
 * table, filtered to ~5k rows; depth 2, 16 bins): every round's event reaches the train panel
 * while the run goes on — its status reads "round k / n" for rounds k < n, each seen before the
 * next round is reported — and Stop, pressed once round 2 shows, ends the run after at most the
 * one round then in progress: the run keeps its rounds, its manifest marked stopped at that round.
 * The path is the page's own: api.train → TrainController.progress → st-train-panel.
 */
import { afterEach, expect, test } from 'vitest'
import { createApi } from '../../src/api.ts'
import type { SnaptrainApi, TrainConfig } from '../../src/api-types.ts'
import { TrainController } from '../../src/ui/train-controller.ts'
import '../../src/ui/train-panel.ts'
import type { StTrainPanel, TrainStartDetail } from '../../src/ui/train-panel.ts'
import type { FetchLike } from '../../src/table/types.ts'
import { cleanup } from '../ui/fixture.ts'

/** The vite dev server answers a missing file with index.html; the snapshot reader needs a 404 (as sweep-run.test.ts). */
const devFetch: FetchLike = async (url, init) => {
  const res = await fetch(url, init)
  return (res.headers.get('content-type') ?? '').includes('text/html')
    ? new Response('Not Found', { status: 404 })
    : res
}
const TABLE = new URL('/tables/marketing/', location.href).href

/** The page's API reading the dev server's tables in this thread. */
function devApi(): SnaptrainApi {
  const api = createApi()
  const dev = (c: TrainConfig): TrainConfig => ({ ...c, http: { fetch: devFetch }, workers: 0 })
  return {
    ...api,
    train: ((config, onProgress, options) => api.train(dev(config), onProgress, options)) as SnaptrainApi['train'],
    explain: config => api.explain({ ...config, run: dev(config.run) }),
  }
}

/** A train panel fed by a TrainController, as st-app feeds them; `seen` collects the panel's status texts in order. */
async function mounted(onStatus: (text: string, tr: TrainController) => void) {
  const panel = document.createElement('st-train-panel') as StTrainPanel
  document.body.append(panel)
  const host = {
    addController: () => {},
    removeController: () => {},
    requestUpdate: () => {
      Object.assign(panel, { state: tr.state, stage: tr.stage, progress: tr.progressView, stopping: tr.stopping })
    },
    updateComplete: Promise.resolve(true),
  }
  const tr = new TrainController(host, devApi)
  await panel.updateComplete
  new MutationObserver(() => {
    const text = panel.shadowRoot?.querySelector('.status')?.textContent ?? ''
    if (text) onStatus(text, tr)
  }).observe(panel.shadowRoot!, { subtree: true, characterData: true, childList: true })
  return tr
}

function form(rounds: number): TrainStartDetail {
  return {
    model: 'gbdt',
    label: 'y',
    weight: '',
    params: JSON.stringify({ max_depth: 2, max_bin: 16, eta: 0.3, num_round: rounds }),
    validFraction: 0.2,
    filter: 'age < 30',
  }
}

afterEach(cleanup)

test('the panel shows "round k / n" during the run, and Stop ends it within one round', async () => {
  const rounds = 40
  const seen: string[] = []
  let stoppedAt: number | undefined
  const tr = await mounted((text, c) => {
    if (seen.at(-1) !== text) seen.push(text)
    const m = /^round (\d+) \/ (\d+)$/.exec(text)
    if (m && Number(m[1]) >= 2 && stoppedAt === undefined) {
      stoppedAt = Number(m[1])
      c.stop()
    }
  })
  await tr.start({ name: 'marketing', url: TABLE }, form(rounds))
  expect(tr.error).toBeUndefined()
  const shown = seen.flatMap(t => {
    const m = /^round (\d+) \/ (\d+)$/.exec(t)
    return m ? [{ k: Number(m[1]), n: Number(m[2]) }] : []
  })
  // Rounds 1, 2 … each shown on its own while the run went on (rounds k < n).
  expect(shown.slice(0, 2)).toEqual([
    { k: 1, n: rounds },
    { k: 2, n: rounds },
  ])
  expect(stoppedAt).toBe(2)
  const at = tr.run?.stopped && 'at_round' in tr.run.stopped ? tr.run.stopped.at_round : -1
  // The round in progress when Stop was pressed is the last: at most one more than was shown.
  expect(at).toBeGreaterThanOrEqual(stoppedAt!)
  expect(at).toBeLessThanOrEqual(stoppedAt! + 1)
  expect(tr.result).toMatchObject({ stopped: true, rounds: at })
  expect(tr.history).toHaveLength(at)
}, 120_000)
