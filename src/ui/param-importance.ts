/**
 * `<st-param-importance .importance=${imp} .trials=${t}>`: horizontal bars of each parameter's
 * share of the metric's variance. The numbers come from the engine (window.snaptrain
 * sweepImportance: fANOVA main effects on a small forest, src/tune/importance.ts), fetched by the
 * sweep controller when the state changes; until they exist it says how many finished trials are
 * needed. Plain HTML bars: a handful of rows need no chart library. Widths go through styleMap
 * (CSSOM), not a style attribute, so a strict CSP without 'unsafe-inline' allows them.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { styleMap } from 'lit/directives/style-map.js'
import './error-view.ts'
import { baseStyles } from './styles.ts'
import type { ParamImportance, TrialRecord } from './types.ts'

/** Finished trials the engine needs before it estimates importance (its minTrials default). */
export const MIN_FINISHED_FOR_IMPORTANCE = 8

/** Trials that ended (completed or stopped) with a finite metric: what the waiting note counts. */
export function finishedCount(trials: readonly TrialRecord[]): number {
  return trials.filter(
    t =>
      (t.status === 'completed' || t.status === 'stopped') && typeof t.metric === 'number' && Number.isFinite(t.metric),
  ).length
}

@customElement('st-param-importance')
export class StParamImportance extends LitElement {
  static styles = [
    baseStyles,
    css`
    .row { display: grid; grid-template-columns: 10em minmax(0, 1fr) 4em; gap: 8px; align-items: center; margin: 2px 0; }
    .track { background: var(--st-head, #f6f7fa); border-radius: 3px; height: 12px; }
    .bar { background: var(--st-accent, #2f6fde); border-radius: 3px; height: 12px; }
    .pct { text-align: right; font-variant-numeric: tabular-nums; }
  `,
  ]

  /** The sweep's importance, highest first; undefined while too few trials finished. */
  @property({ attribute: false }) importance?: ParamImportance[]
  /** The sweep's trials (the waiting note and caption count the finished ones). */
  @property({ attribute: false }) trials: TrialRecord[] = []
  /** Why the importance could not be computed, if it could not. */
  @property() error?: string

  render() {
    const n = finishedCount(this.trials),
      imp = this.importance
    const error = this.error
      ? html`<st-error-view .error=${{ context: 'Computing parameter importance', message: this.error, causes: [] }}></st-error-view>`
      : nothing
    if (!imp) {
      return html`<h2>Parameter importance</h2>${error}
        ${this.error ? nothing : html`<p class="muted waiting">Shown once ${MIN_FINISHED_FOR_IMPORTANCE} trials have finished (${n} so far).</p>`}`
    }
    return html`<h2>Parameter importance</h2>
      <div class="bars">${imp.map(
        x => html`<div class="row" data-param=${x.param}>
        <span class="mono">${x.param}</span>
        <div class="track"><div class="bar" style=${styleMap({ width: `${(x.importance * 100).toFixed(1)}%` })}></div></div>
        <span class="pct">${(x.importance * 100).toFixed(0)}%</span></div>`,
      )}</div>
      <p class="muted">Share of the metric's variance explained by each parameter alone (fANOVA main effects on a small random forest, ${n} finished trials).</p>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-param-importance': StParamImportance
  }
}
