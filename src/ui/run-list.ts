/**
 * `<st-run-list .runs=${runs} .compared=${ids}>`: the single runs kept in this browser (newest
 * first) — table, model, rounds, AUC, a "stopped" mark — each with downloads of its model file,
 * manifest.json and metrics.csv, a compare checkbox and delete. Fires `run-download`
 * (RunDownloadDetail), `run-compare` ({id, on}) and `run-delete` ({id}) on user action only.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { StoredRun } from '../api-types.ts'
import { baseStyles } from './styles.ts'
import type { ErrorView, LoadState } from './types.ts'
import './error-view.ts'
import { familyOf } from '../models/registry.ts'

/** Which file of a run to download. */
export type RunFileKind = 'model' | 'manifest' | 'metrics' | 'continue'

/** Detail of `run-download`. */
export interface RunDownloadDetail {
  id: string
  file: RunFileKind
}

/**
 * What a run's line says: rounds (or evaluations), the score, stopped. The score of a binary run
 * is its AUC; of any other task (multiclass, whose auc is one-vs-rest, ranking, regression), or a
 * binary run without AUC, its last metric, the one early stopping watches.
 */
export function runLine(r: StoredRun): string {
  const family = familyOf(r.model)
  const what = `${r.summary.rounds} ${family.evaluation}s`
  const last = Object.entries(r.summary.eval ?? {}).at(-1)
  const binary = family.task(r.params) === 'binary'
  const score =
    (!binary || r.summary.auc === null) && last
      ? `${last[0]} ${last[1].toFixed(4)}`
      : binary
        ? `AUC ${r.summary.auc === null ? '–' : r.summary.auc.toFixed(4)}`
        : 'no validation metric'
  return `${r.model} · ${what} · ${score}${r.stopped ? ' · stopped' : ''}`
}

@customElement('st-run-list')
export class StRunList extends LitElement {
  static styles = [
    baseStyles,
    css`
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 6px; }
    li { display: grid; gap: 2px; border-bottom: 1px solid var(--st-border, #e2e6ee); padding-bottom: 6px; }
    .head { display: flex; gap: 6px; align-items: baseline; }
    .files { display: flex; gap: 4px; flex-wrap: wrap; }
    .files button { font-size: 12px; padding: 2px 6px; }
    .stopped { color: var(--st-warn, #b35c00); }
  `,
  ]

  @property({ attribute: false }) runs: StoredRun[] = []
  /** Runs ticked for the side-by-side comparison. */
  @property({ attribute: false }) compared: string[] = []
  @property() state: LoadState = 'idle'
  @property({ attribute: false }) error?: ErrorView

  render() {
    return html`<h2>Runs</h2>
      ${this.error ? html`<st-error-view .error=${this.error}></st-error-view>` : nothing}
      ${
        this.runs.length === 0
          ? html`<p class="muted">${this.state === 'loading' ? 'Loading…' : 'Finished runs are kept here.'}</p>`
          : html`<ul>${this.runs.map(r => this.item(r))}</ul>`
      }`
  }

  private item(r: StoredRun) {
    const on = this.compared.includes(r.id)
    return html`<li data-run=${r.id}>
      <label class="head"><input type="checkbox" class="compare" .checked=${on}
        @change=${(e: Event) => this.fire('run-compare', { id: r.id, on: (e.target as HTMLInputElement).checked })}>
        <strong>${r.table.name}</strong><span class="muted">${new Date(r.createdAt).toLocaleTimeString()}</span></label>
      <span class=${r.stopped ? 'stopped' : ''}>${runLine(r)}</span>
      <span class="files">
        <button data-file="model" @click=${() => this.fire('run-download', { id: r.id, file: 'model' })}>${r.modelFile}</button>
        <button data-file="manifest" @click=${() => this.fire('run-download', { id: r.id, file: 'manifest' })}>manifest.json</button>
        <button data-file="metrics" @click=${() => this.fire('run-download', { id: r.id, file: 'metrics' })}>metrics.csv</button>
        <button data-file="continue" @click=${() => this.fire('run-download', { id: r.id, file: 'continue' })}>continue.zip</button>
        <button class="delete" @click=${() => this.fire('run-delete', { id: r.id })}>Delete</button>
      </span>
    </li>`
  }

  private fire(name: string, detail: object) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-run-list': StRunList
  }
  interface HTMLElementEventMap {
    'run-download': CustomEvent<RunDownloadDetail>
    'run-compare': CustomEvent<{ id: string; on: boolean }>
    'run-delete': CustomEvent<{ id: string }>
  }
}
