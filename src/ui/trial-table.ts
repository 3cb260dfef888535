/**
 * `<st-trial-table .trials=${t} .states=${s} .strategy=${name} .rungs=${r}>`: every trial of a
 * sweep — its state as Optuna reads it (`states`, tune/trial-state.ts: running / complete / pruned
 * / failed / waiting, with a progress bar while running, the error when failed), the columns its
 * strategy has (trial-rows.ts trialColumns: Hyperband / BOHB bracket, rung and the trial a
 * promotion continues — "#3", a button that highlights and scrolls to that row —; ASHA the rung
 * reached, `rungs`; grid, random, TPE neither), resource reached / requested, metric, GPU-seconds
 * and one column per parameter. Sorting (click a header; again to reverse), filtering (state,
 * free text) and the highlighted row are view state kept here; no events.
 */
import { LitElement, html, css } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import {
  cellText,
  filterTrials,
  paramNames,
  sortTrials,
  trialColumns,
  trialProgress,
  type SortDir,
  type TrialColumn,
  type TrialFilter,
  type TrialView,
} from './trial-rows.ts'
import { STATE_WORDS, stateWord, type OptunaTrialState } from '../tune/trial-state.ts'
import type { StrategyName } from '../tune/types.ts'
import type { TrialRecord, TrialStatus } from './types.ts'

/** The record statuses, offered when the table has no states. */
const STATUSES: TrialStatus[] = ['pending', 'running', 'completed', 'stopped', 'failed']
const HEADS: Record<string, string> = { id: '#', gpuSeconds: 'GPU s', status: 'state' }

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
    tr.stopped td, tr.pruned td { color: var(--st-muted, #5b6473); }
    tr.highlight td { background: var(--st-accent-bg, #e8f0fd); }
    button.from { border: 0; background: none; padding: 0; color: var(--st-accent, #2f6fde); text-decoration: underline; cursor: pointer; font: inherit; }
    .err { display: block; white-space: normal; color: var(--st-error, #c62828); max-width: 28em; }
    progress { width: 5em; height: 8px; vertical-align: middle; }
  `,
  ]

  @property({ attribute: false }) trials: TrialRecord[] = []
  /** Each trial's state (tune/trial-state.ts trialStates); absent: the records' own statuses. */
  @property({ attribute: false }) states?: ReadonlyMap<number, OptunaTrialState>
  /** The sweep's strategy: which of bracket, rung and promotion columns show (all when absent). */
  @property() strategy?: StrategyName
  /** ASHA: the rung each trial reached (tune/trial-state.ts rungReached). */
  @property({ attribute: false }) rungs?: ReadonlyMap<number, number | undefined>
  @property() metricLabel = 'metric'

  @state() sortColumn: TrialColumn = 'id'
  @state() sortDir: SortDir = 'asc'
  @state() filter: TrialFilter = { status: 'all', text: '' }
  /** The row a "from #n" button pointed at. */
  @state() highlighted?: number

  private view(): TrialView {
    const words = this.states && new Map([...this.states].map(([id, s]) => [id, stateWord(s)]))
    return { words, rungs: this.strategy === 'asha' ? this.rungs : undefined }
  }

  render() {
    const params = paramNames(this.trials)
    const view = this.view()
    const columns: TrialColumn[] = [...trialColumns(this.strategy), ...params.map(p => `param:${p}` as const)]
    const rows = sortTrials(filterTrials(this.trials, this.filter, view), this.sortColumn, this.sortDir, view)
    const choices: readonly string[] = view.words ? STATE_WORDS : STATUSES
    return html`<div class="tools">
        <select aria-label="state filter" @change=${(e: Event) => {
          this.filter = { ...this.filter, status: (e.target as HTMLSelectElement).value }
        }}>
          ${['all', ...choices].map(s => html`<option value=${s} ?selected=${s === this.filter.status}>${s === 'all' ? 'all states' : s}</option>`)}
        </select>
        <input type="search" aria-label="filter trials" placeholder="filter: text in params, status, error" .value=${this.filter.text}
          @input=${(e: Event) => {
            this.filter = { ...this.filter, text: (e.target as HTMLInputElement).value }
          }}>
        <span class="muted count">${rows.length} of ${this.trials.length} trials</span>
      </div>
      <div class="scroll"><table class="trials">
        <thead><tr>${columns.map(c => this.head(c))}</tr></thead>
        <tbody>${rows.map(t => {
          const status = view.words?.get(t.id) ?? t.status
          return html`<tr data-trial=${t.id} data-status=${status} class="${status}${t.id === this.highlighted ? ' highlight' : ''}">
          ${columns.map(c =>
            c === 'status'
              ? this.statusCell(t, status)
              : c === 'from' && t.promotedFrom !== undefined
                ? html`<td data-col="from"><button class="from" title="promoted from trial ${t.promotedFrom}: show it"
                    @click=${() => this.show(t.promotedFrom!)}>#${t.promotedFrom}</button></td>`
                : html`<td class="num" data-col=${c}>${cellText(t, c, view)}</td>`,
          )}
        </tr>`
        })}</tbody>
      </table></div>`
  }

  private head(c: TrialColumn) {
    const name = c.startsWith('param:') ? c.slice(6) : c === 'metric' ? this.metricLabel : (HEADS[c] ?? c)
    const arrow = this.sortColumn === c ? (this.sortDir === 'asc' ? ' ▲' : ' ▼') : ''
    return html`<th data-col=${c} aria-sort=${this.sortColumn === c ? (this.sortDir === 'asc' ? 'ascending' : 'descending') : 'none'}>
      <button @click=${() => this.sortBy(c)}>${name}${arrow}</button></th>`
  }

  /** Highlights trial `id`'s row and scrolls it into view (clearing a filter that hides it). */
  private async show(id: number) {
    this.highlighted = id
    if (!filterTrials(this.trials, this.filter, this.view()).some(t => t.id === id))
      this.filter = { status: 'all', text: '' }
    await this.updateComplete
    this.renderRoot.querySelector(`tr[data-trial="${id}"]`)?.scrollIntoView({ block: 'nearest' })
  }

  private statusCell(t: TrialRecord, status: string) {
    return html`<td data-col="status">${status}
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
