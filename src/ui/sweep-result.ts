/**
 * `<st-sweep-result .state=${s}>`: the best configuration of a sweep — trial, metric, its
 * complete parameters (SweepBest.params: what it trained, num_round / epochs included), the
 * `snaptrain train` command that trains the same model (trainCommand) — with download buttons (params JSON, model — for the recommender also as
 * ONNX and safetensors + features.json —, run manifest, trials CSV,
 * the best trial's continue bundle as continue.zip, the whole sweep as JSON, the sweep as an Optuna journal). Fires `sweep-download`
 * (SweepDownloadDetail); the owner fetches and saves the file.
 */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { formatNumber } from './format.ts'
import { baseStyles } from './styles.ts'
import type { SweepDownloadDetail, SweepDownloadKind, SweepState } from './types.ts'
import { DEFAULT_FAMILY, FAMILIES, familyOf } from '../models/registry.ts'
import { DEFAULT_VALID_FRACTION } from '../eval/validation.ts'

/** `v` as one POSIX shell word: bare when safe, else single-quoted. */
function shellWord(v: string): string {
  return /^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replaceAll("'", `'\\''`)}'`
}

/**
 * The `snaptrain train` command that trains the best trial's model again: the sweep's table
 * (its folder, or its URL) at the version it read, label, features, filter, row columns,
 * validation (its table, or the share: the sweep's default 0.2 said out loud), split key, seed,
 * and the best trial's complete parameters. Undefined before a best trial.
 */
export function trainCommand(s: SweepState): string | undefined {
  const c = s.config
  if (!s.best) return undefined
  const args: Array<[string, string | number | undefined]> = [
    ['--table', c.tablePath ?? c.table],
    ['--version', c.version],
    ['--model', c.model === DEFAULT_FAMILY ? undefined : c.model],
    ['--label', c.label],
    ['--features', c.features?.join(',')],
    ['--filter', c.filter],
    ['--weight', c.weight],
    ['--base-margin', c.baseMargin],
    ['--qid', c.qid],
    ['--valid-table', c.validTable === undefined ? undefined : (c.validTablePath ?? c.validTable)],
    ['--valid-version', c.validTable === undefined ? undefined : c.validVersion],
    ['--valid-fraction', c.validTable === undefined ? (c.validFraction ?? DEFAULT_VALID_FRACTION) : undefined],
    ['--split-key', c.splitKey?.join(',')],
    ['--seed', c.seed ?? 0],
    ['--params', JSON.stringify(s.best.params)],
  ]
  return [
    'snaptrain train',
    ...args.flatMap(([flag, v]) => (v === undefined ? [] : [`${flag} ${shellWord(String(v))}`])),
  ].join(' \\\n  ')
}

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
      <div class="muted">Trains the same model:</div>
      <pre class="command mono">${trainCommand(s)}</pre>
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
