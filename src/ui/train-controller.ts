/**
 * The single training run of the app shell: parses the form's parameters, calls
 * `api.train(config, onProgress)` (the family the panel chose: src/models/registry.ts) for the open table, and keeps what the train panel and the
 * curve show (state, stage, per-round metrics, result, error); after a GBDT run it asks
 * `api.explain` for the model's importance and SHAP summary. A ReactiveController like
 * TableController, so st-app stays the only mediator; a newer run makes older answers be ignored.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import type {
  Explanation,
  SnaptrainApi,
  StoredRun,
  StoredRunData,
  TableAccess,
  TrainConfig,
  TrainProgress,
} from '../api-types.ts'
import type { RunResult } from '../run/config.ts'
import { progressDone } from '../run/progress.ts'
import { toErrorView } from './errors.ts'
import type { RunProgressView, TrainModel, TrainResultView, TrainStartDetail } from './train-panel.ts'
import type { ErrorView, LoadState } from './types.ts'
import { DEFAULT_FAMILY, familyOf, type Task } from '../models/registry.ts'
import { storedValidation } from './result-data.ts'
import { keepRate } from './adapter-defaults.ts'

/** What is being trained on. */
export interface TrainTarget {
  name: string
  url: string
  version?: number
  /** The table's governed access (a share's), passed on to the run and never shown. */
  access?: TableAccess
}

/** Validation rows a run's SHAP summary explains at most: TreeSHAP runs on the page's thread. */
export const EXPLAIN_ROWS = 2000

/** One run at a time; read its fields in the host's render(). */
export class TrainController implements ReactiveController {
  state: LoadState = 'idle'
  stage = ''
  error?: ErrorView
  /** Metrics per finished round (gbdt: validation) or evaluation (recsys: train_loss + validation). */
  history: Array<Record<string, number>> = []
  /** Model of the current / last run. */
  model: TrainModel = DEFAULT_FAMILY
  result?: TrainResultView
  /** The last GBDT run's explanation (importance, SHAP), computed after it finished. */
  explainState: LoadState = 'idle'
  explainError?: ErrorView
  explanation?: Explanation
  /** Rounds (or evaluations) done of the total, elapsed and estimated remaining time, while training. */
  progressView?: RunProgressView
  /** The user pressed Stop: the run ends after its current round or step. */
  stopping = false
  /** Id of the current / last run, given at its start: its view's address and the kept run's id. */
  runId?: string
  /** The finished run as kept in the Runs list, and its validation rows (all of them: the results view). */
  run?: StoredRun
  validation?: StoredRunData['validation']
  /** The finished run's task (the registry's, from its parameters): which results view it gets. */
  task?: Task
  private ticket = 0
  private abort?: AbortController
  private startedAt = 0

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => SnaptrainApi,
    /** Hears each finished run (st-app keeps it in the Runs list). */
    private readonly onFinished: (run: StoredRun, data: StoredRunData) => void = () => {},
    /** Hears a finished run's explanation (st-app keeps it with the run). */
    private readonly onExplained: (id: string, explanation: Explanation) => void = () => {},
  ) {
    host.addController(this)
  }

  /** Stops the run in progress after its current round or step; what was trained is kept. */
  stop(): void {
    if (this.state !== 'loading' || !this.abort) return
    this.stopping = true
    this.abort.abort()
    this.host.requestUpdate()
  }

  hostConnected(): void {}

  /** Forgets the last run (another table was opened). */
  reset(): void {
    this.ticket++
    this.abort?.abort()
    Object.assign(this, { state: 'idle', stage: '', error: undefined, history: [], result: undefined })
    Object.assign(this, {
      progressView: undefined,
      stopping: false,
      run: undefined,
      validation: undefined,
      task: undefined,
      runId: undefined,
    })
    Object.assign(this, { explainState: 'idle', explainError: undefined, explanation: undefined })
    this.host.requestUpdate()
  }

  /** Trains on `target`; resolves when done or failed, never rejects. */
  async start(target: TrainTarget, form: TrainStartDetail): Promise<void> {
    const ticket = ++this.ticket
    const model = form.model ?? DEFAULT_FAMILY
    Object.assign(this, {
      state: 'loading',
      stage: 'Starting',
      error: undefined,
      history: [],
      result: undefined,
      model,
      explainState: 'idle',
      explainError: undefined,
      explanation: undefined,
      progressView: undefined,
      stopping: false,
      run: undefined,
      validation: undefined,
      task: undefined,
      runId: runId(),
    })
    this.abort?.abort()
    const abort = (this.abort = new AbortController())
    this.startedAt = performance.now()
    this.host.requestUpdate()
    try {
      const params = parseParamsText(form.params)
      const config: TrainConfig = {
        table: target.url,
        version: target.version,
        label: form.label,
        // 0 = no validation rows (as the CLI's --valid-fraction 0).
        validFraction: form.validFraction > 0 ? form.validFraction : undefined,
        params,
      }
      if (form.filter) config.filter = form.filter
      if (form.weight) config.weight = form.weight
      if (form.qid) config.qid = form.qid
      if (form.features) config.features = form.features
      if (form.evalTrain) config.evalTrain = true
      if (target.access) config.access = target.access
      const onProgress = (p: TrainProgress) => {
        if (ticket === this.ticket) this.progress(p)
      }
      const options = { signal: abort.signal, validScores: true }
      // The default family is what a config without a model trains: its config stays without one.
      const r = await this.api().train(model === DEFAULT_FAMILY ? config : { ...config, model }, onProgress, options)
      if (ticket !== this.ticket) return
      await this.keep(r, target, form.label, model)
      if (ticket !== this.ticket) return
      const s = r.summary
      this.result = {
        auc: s.auc,
        logloss: s.logloss,
        ...(s.eval ? { eval: s.eval } : {}),
        rounds: s.rounds,
        seconds: s.train_seconds,
        adapter: s.adapter,
        rowsTrain: s.rows_train,
        rowsValid: s.rows_valid,
        model,
      }
      if (r.manifest.stopped) this.result.stopped = true
      // The recommender's summary also says its speed, epochs and steps.
      const speed = s as typeof s & { samples_per_second?: number; epochs?: number; steps?: number }
      if (speed.samples_per_second !== undefined)
        Object.assign(this.result, {
          samplesPerSecond: speed.samples_per_second,
          epochs: speed.epochs,
          steps: speed.steps,
        })
      // This adapter's measured speed, for the next estimate in minutes (adapter-defaults.ts).
      if (speed.steps !== undefined) keepRate(s.adapter, model, speed.steps, s.train_seconds, 'step')
      else keepRate(s.adapter, model, s.rounds, s.train_seconds, 'round')
      this.state = 'ready'
      if (familyOf(model).explains && typeof r.model === 'string')
        void this.explain(ticket, config, r.model, target.name)
    } catch (e) {
      if (ticket !== this.ticket) return
      Object.assign(this, { state: 'error', error: toErrorView(`Training on table ${target.name}`, e) })
    }
    this.host.requestUpdate()
  }

  /** The finished run as the Runs list keeps it (its downloads and curves); a run the API cannot describe is not kept. */
  private async keep(r: RunResult, target: TrainTarget, label: string, model: TrainModel): Promise<void> {
    this.validation = r.validation
    const task = (this.task = familyOf(model).task((r.manifest.params ?? {}) as Record<string, unknown>))
    let modelFile: string
    try {
      modelFile = (await this.api().runFiles(r))[0].name
    } catch (e) {
      this.error = toErrorView(`Preparing the files of the run on ${target.name}`, e)
      return
    }
    this.run = {
      id: this.runId ?? runId(),
      createdAt: new Date().toISOString(),
      table: { name: target.name, url: target.url, version: r.manifest.table?.version ?? target.version },
      model,
      label,
      params: { ...r.manifest.params } as Record<string, unknown>,
      summary: r.summary,
      metrics: r.metrics,
      manifest: r.manifest,
      modelFile,
      ...(r.manifest.stopped ? { stopped: r.manifest.stopped } : {}),
    }
    const kept = r.validation && storedValidation(task, r.validation)
    this.onFinished(this.run, { model: r.model, ...(kept ? { validation: kept } : {}) })
  }

  /** Importance and SHAP summary of a finished GBDT run; a failure is shown, the run's result stays. */
  private async explain(ticket: number, run: TrainConfig, model: string, name: string): Promise<void> {
    this.explainState = 'loading'
    try {
      const explanation = await this.api().explain({ run, model, rows: EXPLAIN_ROWS })
      if (ticket !== this.ticket) return
      Object.assign(this, { explainState: 'ready', explanation })
      if (this.run) this.onExplained(this.run.id, explanation)
    } catch (e) {
      if (ticket !== this.ticket) return
      Object.assign(this, { explainState: 'error', explainError: toErrorView(`Explaining the model of ${name}`, e) })
    }
    this.host.requestUpdate()
  }

  private progress(p: TrainProgress): void {
    if (p.kind === 'stage') this.stage = p.message
    else {
      this.history = [...this.history, p.metrics]
      // The recommender counts steps (what Stop obeys and the estimate divides); GBDT rounds.
      const unit = p.steps ? 'step' : 'round'
      const { done, total } = progressDone(p)
      this.stage = `${unit} ${done} / ${total}`
      const etaMs = done > 0 && total >= done ? (p.elapsedMs / done) * (total - done) : undefined
      this.progressView = { unit, done, total, elapsedMs: performance.now() - this.startedAt, etaMs }
    }
    this.host.requestUpdate()
  }
}

/** A new run's id: time-ordered, unique in this browser. */
function runId(): string {
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`
}

/** The params textarea as an object; a clear error when it is not a JSON object. */
export function parseParamsText(text: string): Record<string, unknown> {
  let v: unknown
  try {
    v = JSON.parse(text)
  } catch (e) {
    throw new SyntaxError(`parameters: not valid JSON (${(e as Error).message})`)
  }
  if (!v || typeof v !== 'object' || Array.isArray(v))
    throw new TypeError('parameters: must be a JSON object, e.g. {"max_depth": 6}')
  return v as Record<string, unknown>
}
