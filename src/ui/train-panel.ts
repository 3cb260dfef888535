/**
 * `<st-train-panel>`: the single-run training form for the open table — model (GBDT or the
 * embeddings + MLP recommender), label picker (numeric and boolean columns), row weight picker
 * (families that take weights: another numeric column, or none), validation share,
 * optional row filter, the model's parameters as JSON — with the run's progress, its error and
 * its result; while training, rounds done of the total, elapsed and estimated remaining time and a
 * Stop button. With `live` (the run's own view) it shows only that status — progress, Stop, error and
 * result — and no form. Presentational: it fires `train-start` and `train-stop`, and st-app does the work.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import type { ErrorView, LoadState, StructField } from './types.ts'
import './error-view.ts'
import { DEFAULT_FAMILY, FAMILY_MENU, familyOf } from '../models/registry.ts'
import { DEFAULT_VALID_FRACTION } from '../eval/validation.ts'
import type { AdapterView } from './types.ts'
import { minutesText, pageParamsFor, readRate, softwareNote, stepsMinutesText } from './adapter-defaults.ts'
import './feature-picker.ts'

/** A model family the panel trains: a name of src/models/registry.ts FAMILIES. */
export type TrainModel = string

/** Detail of `train-start`: what the user asked for, unparsed (the owner validates); `filter` '' = none. */
export interface TrainStartDetail {
  model: TrainModel
  label: string
  /** Row weight column (TrainConfig.weight); '' = none. */
  weight: string
  /** Query id column of a ranking run (TrainConfig.qid, rank:* objectives); absent = none. */
  qid?: string
  params: string
  validFraction: number
  filter: string
  /** The feature columns chosen (TrainConfig.features); absent = every column but the label, weight and query id. */
  features?: string[]
  /** GBDT: also report every metric on the training rows (TrainConfig.evalTrain: `train-auc`, …). */
  evalTrain?: boolean
}

/**
 * The result line of a finished run; `rounds` counts boosting rounds (gbdt) or evaluations
 * (recsys), `samplesPerSecond` only for the recommender.
 */
export interface TrainResultView {
  auc: number | null
  logloss: number | null
  /** Every validation metric of the last round by name (TrainSummary.eval); shown instead of auc and logloss when there. */
  eval?: Record<string, number>
  rounds: number
  seconds: number
  adapter: string
  rowsTrain: number
  rowsValid: number
  model?: TrainModel
  samplesPerSecond?: number
  epochs?: number
  steps?: number
  /** The user stopped the run: the numbers are those of the rounds trained. */
  stopped?: boolean
}

/** A run's progress: rounds (GBDT) or steps (recommender) done of the total, times in ms. */
export interface RunProgressView {
  unit: 'round' | 'step'
  done: number
  total: number
  /** Since Train was pressed. */
  elapsedMs: number
  /** Estimated from the time per round so far; undefined before the first. */
  etaMs?: number
}

/** `3 / 20 rounds · 1.2 s elapsed · about 5 s left`. */
export function progressText(p: RunProgressView): string {
  const left = p.etaMs === undefined ? '' : ` · about ${seconds(p.etaMs)} left`
  return `${p.done} / ${p.total} ${p.unit}s · ${seconds(p.elapsedMs)} elapsed${left}`
}

function seconds(ms: number): string {
  const s = ms / 1000
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`
}

const LABEL_TYPES = new Set(['byte', 'short', 'integer', 'long', 'float', 'double', 'boolean'])

/** Columns that can be a label; a conventional label name first when present. */
export function labelCandidates(fields: readonly StructField[]): string[] {
  const names = fields.filter(f => typeof f.type === 'string' && LABEL_TYPES.has(f.type)).map(f => f.name)
  const preferred = names.find(n => ['y', 'label', 'target'].includes(n))
  return preferred ? [preferred, ...names.filter(n => n !== preferred)] : names
}

@customElement('st-train-panel')
export class StTrainPanel extends LitElement {
  static styles = [
    baseStyles,
    css`
    form { display: grid; gap: 8px; grid-template-columns: max-content minmax(0, 1fr); align-items: center; }
    textarea { font-family: var(--st-mono, ui-monospace, monospace); font-size: 12.5px; min-height: 84px; width: 100%; box-sizing: border-box; }
    .actions { grid-column: 1 / -1; display: flex; gap: 12px; align-items: center; }
    .status::before { content: '⏳ '; }
    .result { font-variant-numeric: tabular-nums; }
    .cost { grid-column: 1 / -1; margin: 0; font-size: 12.5px; }
  `,
  ]

  /** Columns of the open table's schema. */
  @property({ attribute: false }) fields: StructField[] = []
  @property() state: LoadState = 'idle'
  /** Progress text while training, e.g. "round 3 / 20". */
  @property() stage = ''
  @property({ attribute: false }) error?: ErrorView
  @property({ attribute: false }) result?: TrainResultView
  /** Rounds done, elapsed and remaining time while training. */
  @property({ attribute: false }) progress?: RunProgressView
  /** Stop was pressed; the run ends after its current round or step. */
  @property({ type: Boolean }) stopping = false
  /** The page's adapter: a software one gets smaller proposed parameters (adapter-defaults.ts) and says why. */
  @property({ attribute: false }) adapter?: AdapterView
  /** Live rows of the open table, when known: the recommender's steps (and minutes) are estimated from them. */
  @property({ type: Number }) rows?: number
  /** The run's view: the run's status only (progress, Stop, error, result), no form; the form stays on home. */
  @property({ type: Boolean }) live = false

  @state() private model: TrainModel = DEFAULT_FAMILY
  @state() private label = ''
  /** Row weight column; '' = every row weighs 1. */
  @state() private weight = ''
  /** Query id column (ranking); '' = none. */
  @state() private qid = ''
  /** The family's pageParams (registry), smaller on a software adapter: sized so a first run is quick. */
  @state() private params = familyOf(DEFAULT_FAMILY).pageParams
  /** The user edited the parameters: an adapter answering later leaves them alone. */
  private paramsEdited = false
  @state() private validFraction = DEFAULT_VALID_FRACTION
  @state() private filter = ''
  /** Feature columns left out by the user (st-feature-picker); the rest but label, weight and query id are chosen. */
  @state() private dropped: string[] = []
  /** GBDT: training-rows metrics beside the validation ones (the page's default: train vs valid shows over-fitting). */
  @state() private evalTrain = true

  render() {
    if (this.live)
      return html`<div class="actions">${this.status()}</div>
        ${this.error ? html`<st-error-view .error=${this.error}></st-error-view>` : nothing}`
    const labels = labelCandidates(this.fields)
    const label = labels.includes(this.label) ? this.label : (labels[0] ?? '')
    const busy = this.state === 'loading'
    const weights = this.weightChoices(labels, label)
    const weight = weights.includes(this.weight) ? this.weight : ''
    const qids = this.qidChoices(labels, label)
    const qid = qids.includes(this.qid) ? this.qid : ''
    return html`<h2>Train a model</h2>
      <form @submit=${(e: Event) => this.submit(e, label)}>
        <label for="model">Model</label>
        <select id="model" @change=${this.onModel}>
          ${FAMILY_MENU.map(d => html`<option value=${d.name} ?selected=${this.model === d.name}>${d.label}</option>`)}
        </select>
        <label for="label">Label</label>
        <select id="label" .value=${label} @change=${(e: Event) => {
          this.label = (e.target as HTMLSelectElement).value
        }}>
          ${labels.map(n => html`<option value=${n} ?selected=${n === label}>${n}</option>`)}
        </select>
        ${
          weights.length > 0
            ? html`<label for="weight">Row weights</label>
        <select id="weight" .value=${weight} @change=${(e: Event) => {
          this.weight = (e.target as HTMLSelectElement).value
        }}>
          <option value="" ?selected=${weight === ''}>none (every row weighs 1)</option>
          ${weights.map(n => html`<option value=${n} ?selected=${n === weight}>${n}</option>`)}
        </select>`
            : nothing
        }
        ${
          qids.length > 0
            ? html`<label for="qid">Query groups</label>
        <select id="qid" .value=${qid} title="rank:ndcg / rank:pairwise / rank:map: the query id column" @change=${(
          e: Event,
        ) => {
          this.qid = (e.target as HTMLSelectElement).value
        }}>
          <option value="" ?selected=${qid === ''}>none (ranking objectives need one)</option>
          ${qids.map(n => html`<option value=${n} ?selected=${n === qid}>${n}</option>`)}
        </select>`
            : nothing
        }
        <span>Features</span><st-feature-picker .columns=${this.featureChoices(label, weight, qid)}
          .chosen=${this.featureChoices(label, weight, qid).filter(c => !this.dropped.includes(c))}
          @features-change=${(e: CustomEvent<string[]>) => {
            this.dropped = this.featureChoices(label, weight, qid).filter(c => !e.detail.includes(c))
          }}></st-feature-picker>
        <label for="valid">Validation share</label>
        <input id="valid" type="number" min="0" max="0.99" step="0.01" title="0: no validation rows" .value=${String(this.validFraction)}
          @change=${(e: Event) => {
            this.validFraction = Number((e.target as HTMLInputElement).value)
          }}>
        <label for="filter">Filter</label>
        <input id="filter" placeholder="optional, e.g. age > 30" .value=${this.filter}
          @input=${(e: Event) => {
            this.filter = (e.target as HTMLInputElement).value
          }}>
        ${
          familyOf(this.model).cliFlags.includes('eval-train')
            ? html`<label for="eval-train">Training-rows metrics</label>
        <label><input id="eval-train" type="checkbox" .checked=${this.evalTrain} @change=${(e: Event) => {
          this.evalTrain = (e.target as HTMLInputElement).checked
        }}> train-auc, … (dashed) beside the validation curve</label>`
            : nothing
        }
        <label for="params">Parameters</label>
        <textarea id="params" .value=${this.params} @input=${(e: Event) => {
          this.params = (e.target as HTMLTextAreaElement).value
          this.paramsEdited = true
        }}></textarea>
        ${this.costLine()}
        <div class="actions">
          <button type="submit" ?disabled=${
            busy || !label || this.featureChoices(label, weight, qid).every(c => this.dropped.includes(c))
          }>Train</button>
          ${this.status()}
        </div>
      </form>
      ${this.error ? html`<st-error-view .error=${this.error}></st-error-view>` : nothing}`
  }

  /** While training: Stop, the stage and the progress; then the result line. */
  private status() {
    if (this.state !== 'loading') return this.result ? this.resultLine(this.result) : nothing
    return html`<button type="button" class="stop" ?disabled=${this.stopping} @click=${this.onStop}>${
      this.stopping ? 'Stopping…' : 'Stop'
    }</button>
      <span class="status" role="status">${this.stage}</span>
      ${this.progress ? html`<span class="progress muted">${progressText(this.progress)}</span>` : nothing}`
  }

  private resultLine(r: TrainResultView) {
    const f = (x: number | null) => (x === null ? '–' : x.toFixed(4))
    // Rounds or evaluations (the family's evaluation unit); epochs and steps where the run has them.
    const steps =
      r.epochs !== undefined || r.steps !== undefined ? ` (${r.epochs ?? '?'} epochs, ${r.steps ?? '?'} steps)` : ''
    const what = `${r.rounds} ${familyOf(r.model).evaluation}s${steps}`
    const speed = r.samplesPerSecond === undefined ? '' : ` · ${Math.round(r.samplesPerSecond)} samples/s`
    // Whatever metrics the run reports (mae, error@0.3, …), else the two headline ones.
    const scores = Object.entries(r.eval ?? {})
      .map(([k, v]) => `${k === 'auc' ? 'AUC' : k} ${f(v)}`)
      .join(' · ')
    return html`<span class="result">${r.stopped ? html`<strong class="stopped">stopped</strong> after ` : ''}${what} in ${r.seconds.toFixed(1)} s · ${scores || `AUC ${f(r.auc)} · logloss ${f(r.logloss)}`}${speed}
      · ${r.rowsTrain} train / ${r.rowsValid} valid rows · <span class="muted">${r.adapter}</span></span>`
  }

  protected willUpdate(changed: Map<PropertyKey, unknown>): void {
    // The adapter answers after the first render: untouched parameters become the adapter's proposal.
    if (changed.has('adapter') && !this.paramsEdited) this.params = pageParamsFor(this.model, this.adapter)
  }

  /** Another model: its default parameters replace the text (the two families share no names). */
  private onModel(e: Event) {
    this.model = (e.target as HTMLSelectElement).value as TrainModel
    this.params = pageParamsFor(this.model, this.adapter)
    this.paramsEdited = false
  }

  /** Why the proposal is small (software adapter) and the run's cost in minutes at this adapter's measured rate. */
  private costLine() {
    const note = softwareNote(this.adapter, 'run')
    const minutes = this.minutes()
    if (!note && !minutes) return nothing
    return html`<p class="cost muted">${minutes ? html`This run: ${minutes}. ` : nothing}${note ?? ''}</p>`
  }

  /** Rounds (num_round) of the parameters, or the recommender's steps from the table's rows, in minutes. */
  private minutes(): string {
    let p: Record<string, unknown> = {}
    try {
      p = JSON.parse(this.params) as Record<string, unknown>
    } catch {
      // The run says what is wrong with the text; no estimate meanwhile.
    }
    const rate = readRate(this.adapter, this.model)
    if (familyOf(this.model).resource.param === 'num_round')
      return minutesText(Number(p.num_round ?? 10), 'round', this.model, rate)
    const param = familyOf(this.model).batches?.param
    const batch = param === undefined || p[param] === undefined ? undefined : Number(p[param])
    const epochs = Number(p[familyOf(this.model).resource.param] ?? 1)
    return stepsMinutesText(this.model, { rows: this.rows, batch, epochs, validFraction: this.validFraction }, rate)
  }

  private onStop() {
    this.dispatchEvent(new CustomEvent('train-stop', { bubbles: true, composed: true }))
  }

  /** Row weight columns: for families that take them (registry cliFlags), any numeric column but the label. */
  private weightChoices(labels: string[], label: string): string[] {
    return familyOf(this.model).cliFlags.includes('weight') ? labels.filter(n => n !== label) : []
  }

  /** Query id columns: for families that rank (registry cliFlags 'qid'), any numeric column but the label. */
  private qidChoices(labels: string[], label: string): string[] {
    return familyOf(this.model).cliFlags.includes('qid') ? labels.filter(n => n !== label) : []
  }

  /** Columns that may be features: all but the label and the chosen weight and query id columns. */
  private featureChoices(label: string, weight: string, qid: string): string[] {
    return this.fields.map(f => f.name).filter(n => n !== label && n !== weight && n !== qid)
  }

  private submit(e: Event, label: string) {
    e.preventDefault()
    const weight = this.weightChoices(labelCandidates(this.fields), label).includes(this.weight) ? this.weight : ''
    const qid = this.qidChoices(labelCandidates(this.fields), label).includes(this.qid) ? this.qid : ''
    const candidates = this.featureChoices(label, weight, qid)
    const features = candidates.filter(c => !this.dropped.includes(c))
    const detail: TrainStartDetail = {
      model: this.model,
      label,
      weight,
      ...(qid ? { qid } : {}),
      params: this.params,
      validFraction: this.validFraction,
      filter: this.filter.trim(),
      // Every candidate chosen: no list (the run's default, as the CLI without --features).
      ...(features.length < candidates.length ? { features } : {}),
      ...(familyOf(this.model).cliFlags.includes('eval-train') && this.evalTrain ? { evalTrain: true } : {}),
    }
    this.dispatchEvent(new CustomEvent('train-start', { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-train-panel': StTrainPanel
  }
  interface HTMLElementEventMap {
    'train-stop': CustomEvent<undefined>
  }
}
