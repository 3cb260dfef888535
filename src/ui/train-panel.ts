/**
 * `<st-train-panel>`: the single-run training form for the open table — label picker (numeric
 * and boolean columns), validation share, XGBoost parameters as JSON — with the run's progress,
 * its error and its result. Presentational: it fires `train-start` and st-app does the work.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import type { ErrorView, LoadState, StructField } from './types.ts'
import './error-view.ts'

/** Detail of `train-start`: what the user asked for, unparsed (the owner validates). */
export interface TrainStartDetail { label: string; params: string; validFraction: number }

/** The result line of a finished run. */
export interface TrainResultView { auc: number | null; logloss: number | null; rounds: number; seconds: number; adapter: string; rowsTrain: number; rowsValid: number }

/** Parameters the form starts with: XGBoost's defaults but fewer rounds, so a first run is quick. */
export const DEFAULT_PARAMS_TEXT = '{\n  "max_depth": 6,\n  "eta": 0.3,\n  "num_round": 20\n}'

const LABEL_TYPES = new Set(['byte', 'short', 'integer', 'long', 'float', 'double', 'boolean'])

/** Columns that can be a label; a conventional label name first when present. */
export function labelCandidates(fields: readonly StructField[]): string[] {
  const names = fields.filter(f => typeof f.type === 'string' && LABEL_TYPES.has(f.type)).map(f => f.name)
  const preferred = names.find(n => ['y', 'label', 'target'].includes(n))
  return preferred ? [preferred, ...names.filter(n => n !== preferred)] : names
}

@customElement('st-train-panel')
export class StTrainPanel extends LitElement {
  static styles = [baseStyles, css`
    form { display: grid; gap: 8px; grid-template-columns: max-content minmax(0, 1fr); align-items: center; }
    textarea { font-family: var(--st-mono, ui-monospace, monospace); font-size: 12.5px; min-height: 84px; width: 100%; box-sizing: border-box; }
    .actions { grid-column: 1 / -1; display: flex; gap: 12px; align-items: center; }
    .status::before { content: '⏳ '; }
    .result { font-variant-numeric: tabular-nums; }
  `]

  /** Columns of the open table's schema. */
  @property({ attribute: false }) fields: StructField[] = []
  @property() state: LoadState = 'idle'
  /** Progress text while training, e.g. "round 3 / 20". */
  @property() stage = ''
  @property({ attribute: false }) error?: ErrorView
  @property({ attribute: false }) result?: TrainResultView

  @state() private label = ''
  @state() private params = DEFAULT_PARAMS_TEXT
  @state() private validFraction = 0.2

  render() {
    const labels = labelCandidates(this.fields)
    const label = labels.includes(this.label) ? this.label : labels[0] ?? ''
    const busy = this.state === 'loading'
    return html`<h2>Train a GBDT</h2>
      <form @submit=${(e: Event) => this.submit(e, label)}>
        <label for="label">Label</label>
        <select id="label" .value=${label} @change=${(e: Event) => { this.label = (e.target as HTMLSelectElement).value }}>
          ${labels.map(n => html`<option value=${n} ?selected=${n === label}>${n}</option>`)}
        </select>
        <label for="valid">Validation share</label>
        <input id="valid" type="number" min="0.01" max="0.99" step="0.01" .value=${String(this.validFraction)}
          @change=${(e: Event) => { this.validFraction = Number((e.target as HTMLInputElement).value) }}>
        <label for="params">Parameters</label>
        <textarea id="params" .value=${this.params} @input=${(e: Event) => { this.params = (e.target as HTMLTextAreaElement).value }}></textarea>
        <div class="actions">
          <button type="submit" ?disabled=${busy || !label}>Train</button>
          ${busy ? html`<span class="status" role="status">${this.stage}</span>` : nothing}
          ${this.result && !busy ? this.resultLine(this.result) : nothing}
        </div>
      </form>
      ${this.error ? html`<st-error-view .error=${this.error}></st-error-view>` : nothing}`
  }

  private resultLine(r: TrainResultView) {
    const f = (x: number | null) => (x === null ? '–' : x.toFixed(4))
    return html`<span class="result">${r.rounds} rounds in ${r.seconds.toFixed(1)} s · AUC ${f(r.auc)} · logloss ${f(r.logloss)}
      · ${r.rowsTrain} train / ${r.rowsValid} valid rows · <span class="muted">${r.adapter}</span></span>`
  }

  private submit(e: Event, label: string) {
    e.preventDefault()
    const detail: TrainStartDetail = { label, params: this.params, validFraction: this.validFraction }
    this.dispatchEvent(new CustomEvent('train-start', { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap { 'st-train-panel': StTrainPanel }
}
