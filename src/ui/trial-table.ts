/**
 * `<st-trial-table .trials=${t}>`: every trial of a sweep — status (with a progress bar while
 * running, the error when failed), bracket, rung, resource reached / requested, metric,
 * GPU-seconds and one column per parameter. Sorting (click a header; again to reverse) and
 * filtering (status, free text) are view state kept here; no events.
 */
import { LitElement, html, css } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import {
  cellText,
  filterTrials,
  paramNames,
  sortTrials,
  trialProgress,
  TRIAL_COLUMNS,
  type SortDir,
  type TrialColumn,
  type TrialFilter,
} from './trial-rows.ts'
import type { TrialRecord, TrialStatus } from './types.ts'

const STATUSES: Array<TrialStatus | 'all'> = ['all', 'pending', 'running', 'completed', 'stopped', 'failed']
const HEADS: Record<string, string> = { id: '#', gpuSeconds: 'GPU s' }

@customElement('st-trial-table')
export class StTrialTable extends LitElement {
  static styles = [
    baseStyles,
    css`
    .tools { display: flex; gap: 8px; align-items: center; margin-bottom: 6px; flex-wrap: wrap; }
    .scroll { max-height: 360px; overflow: auto; border: 1px solid var(--st-border, #e2e6ee); border-radius: 6px; }
    th button { border: 0; background: none; padding: 0; font-weight: 600; color: inherit; }
    td { white-space: nowrap; }
    tr.failed td { background: var(--st-error-bg, #fdf1f1); }
    tr.stopped td { color: var(--st-muted, #5b6473); }
    .err { display: block; white-space: normal; color: var(--st-error, #c62828); max-width: 28em; }
    progress { width: 5em; height: 8px; vertical-align: middle; }
  `,
  ]

  @property({ attribute: false }) trials: TrialRecord[] = []
  @property() metricLabel = 'metric'

  @state() sortColumn: TrialColumn = 'id'
  @state() sortDir: SortDir = 'asc'
  @state() filter: TrialFilter = { status: 'all', text: '' }

  render() {
    const params = paramNames(this.trials)
    const columns: TrialColumn[] = [...TRIAL_COLUMNS, ...params.map(p => `param:${p}` as const)]
    const rows = sortTrials(filterTrials(this.trials, this.filter), this.sortColumn, this.sortDir)
    return html`<div class="tools">
        <select aria-label="status filter" @change=${(e: Event) => {
          this.filter = { ...this.filter, status: (e.target as HTMLSelectElement).value as TrialFilter['status'] }
        }}>
          ${STATUSES.map(s => html`<option value=${s} ?selected=${s === this.filter.status}>${s === 'all' ? 'all statuses' : s}</option>`)}
        </select>
        <input type="search" aria-label="filter trials" placeholder="filter: text in params, status, error" .value=${this.filter.text}
          @input=${(e: Event) => {
            this.filter = { ...this.filter, text: (e.target as HTMLInputElement).value }
          }}>
        <span class="muted count">${rows.length} of ${this.trials.length} trials</span>
      </div>
      <div class="scroll"><table class="trials">
        <thead><tr>${columns.map(c => this.head(c))}</tr></thead>
        <tbody>${rows.map(
          t => html`<tr data-trial=${t.id} data-status=${t.status} class=${t.status}>
          ${columns.map(c => (c === 'status' ? this.statusCell(t) : html`<td class="num" data-col=${c}>${cellText(t, c)}</td>`))}
        </tr>`,
        )}</tbody>
      </table></div>`
  }

  private head(c: TrialColumn) {
    const name = c.startsWith('param:') ? c.slice(6) : c === 'metric' ? this.metricLabel : (HEADS[c] ?? c)
    const arrow = this.sortColumn === c ? (this.sortDir === 'asc' ? ' ▲' : ' ▼') : ''
    return html`<th data-col=${c} aria-sort=${this.sortColumn === c ? (this.sortDir === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button @click=${() => this.sortBy(c)}>${name}${arrow}</button></th>`
  }

  private statusCell(t: TrialRecord) {
    return html`<td data-col="status">${t.status}
      ${t.status === 'running' ? html` <progress max="1" .value=${trialProgress(t)}></progress>` : ''}
      ${t.error ? html`<span class="err">${t.error}</span>` : ''}</td>`
  }

  private sortBy(c: TrialColumn) {
    if (this.sortColumn === c) this.sortDir = this.sortDir === 'asc' ? 'desc' : 'asc'
    else Object.assign(this, { sortColumn: c, sortDir: c === 'metric' ? 'desc' : 'asc' })
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-trial-table': StTrialTable
  }
}
