/**
 * `<st-sweep-result .state=${s}>`: the best configuration of a sweep — trial,
 * metric, parameters — with download buttons (params JSON, model — for the recommender also as
 * ONNX and safetensors + features.json —, run manifest, trials CSV,
 * the best trial's continue bundle as continue.zip, the whole sweep as JSON, the sweep as an Optuna journal). Fires `sweep-download`
 * (SweepDownloadDetail); the owner fetches and saves the file.
 */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { formatNumber } from './format.ts'
import { baseStyles } from './styles.ts'
import type { SweepDownloadDetail, SweepDownloadKind, SweepState } from './types.ts'
import { FAMILIES, familyOf } from '../models/registry.ts'

/** Download buttons in display order with their labels. */
export const DOWNLOADS: ReadonlyArray<[SweepDownloadKind, string]> = [
  ['params', 'Params JSON'],
  ['model', 'Model'],
  ['model-ubj', 'Model (UBJSON)'],
  ['model-onnx', 'Model (ONNX)'],
  ['model-safetensors', 'Weights (safetensors)'],
  ['features', 'features.json'],
  ['manifest', 'Manifest'],
  ['csv', 'Trials CSV'],
  ['continue', 'Continue bundle (continue.zip)'],
  ['sweep', 'Sweep JSON'],
  ['optuna', 'Optuna journal'],
]

/** Downloads some family lists as its own (registry `downloads`: GBDT's UBJSON model; the recommender's ONNX and safetensors exports). */
const FAMILY_ONLY = new Set(FAMILIES.flatMap(f => f.downloads))

/**
 * The downloads of sweep `s`: every download no family claims, and its family's own (the UBJSON
 * model file only for GBDT; model.onnx, model.safetensors and its features.json only for the recommender).
 */
export function downloadsFor(s: SweepState): ReadonlyArray<[SweepDownloadKind, string]> {
  const own = familyOf(s.config.model).downloads
  return DOWNLOADS.filter(([kind]) => !FAMILY_ONLY.has(kind) || own.includes(kind))
}

@customElement('st-sweep-result')
export class StSweepResult extends LitElement {
  static styles = [
    baseStyles,
    css`
    .card { border: 1px solid var(--st-accent, #2f6fde); border-radius: 8px; padding: 10px 12px; background: var(--st-accent-bg, #f3f7fe); }
    .metric { font-size: 18px; font-weight: 600; font-variant-numeric: tabular-nums; }
    pre { background: #fff; border: 1px solid var(--st-border, #e2e6ee); border-radius: 6px; padding: 8px; overflow: auto; max-height: 240px; margin: 6px 0; }
    .downloads { display: flex; flex-wrap: wrap; gap: 6px; }
  `,
  ]

  @property({ attribute: false }) state?: SweepState

  render() {
    const s = this.state
    const best = s?.best
    if (!s || !best)
      return html`<h2>Best configuration</h2><p class="muted empty">Appears when a trial reports a metric.</p>`
    const metric = s.config.metric ?? 'auc'
    return html`<h2>Best configuration</h2><div class="card">
      <div><span class="metric">${metric} ${formatNumber(best.metric)}</span>
        <span class="muted">trial ${best.trial}${s.status === 'running' ? ' (so far)' : ''}</span></div>
      <pre class="params mono">${JSON.stringify(best.params, null, 2)}</pre>
      <div class="downloads">${downloadsFor(s).map(
        ([kind, label]) => html`<button data-download=${kind}
        @click=${() => this.download(s.id, kind)}>⤓ ${label}</button>`,
      )}</div>
    </div>`
  }

  private download(id: string, kind: SweepDownloadKind) {
    const detail: SweepDownloadDetail = { id, kind }
    this.dispatchEvent(new CustomEvent('sweep-download', { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-sweep-result': StSweepResult
  }
  interface HTMLElementEventMap {
    'sweep-download': CustomEvent<SweepDownloadDetail>
  }
}
