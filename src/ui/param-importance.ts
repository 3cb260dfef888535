/**
 * `<st-param-importance .trials=${t}>`: horizontal bars of each parameter's share of the metric's
 * variance (importance.ts), shown once enough trials finished; until then it says how many more
 * are needed. Plain HTML bars: a handful of rows need no chart library. Widths go through
 * styleMap (CSSOM), not a style attribute, so a strict CSP without 'unsafe-inline' allows them.
 */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { styleMap } from 'lit/directives/style-map.js'
import { finishedTrials, MIN_FINISHED_FOR_IMPORTANCE, paramImportance } from './importance.ts'
import { baseStyles } from './styles.ts'
import type { TrialRecord } from './types.ts'

@customElement('st-param-importance')
export class StParamImportance extends LitElement {
  static styles = [baseStyles, css`
    .row { display: grid; grid-template-columns: 10em minmax(0, 1fr) 4em; gap: 8px; align-items: center; margin: 2px 0; }
    .track { background: var(--st-head, #f6f7fa); border-radius: 3px; height: 12px; }
    .bar { background: var(--st-accent, #2f6fde); border-radius: 3px; height: 12px; }
    .pct { text-align: right; font-variant-numeric: tabular-nums; }
  `]

  @property({ attribute: false }) trials: TrialRecord[] = []

  render() {
    const imp = paramImportance(this.trials)
    if (!imp) {
      const n = finishedTrials(this.trials).length
      return html`<h2>Parameter importance</h2>
        <p class="muted waiting">Shown once ${MIN_FINISHED_FOR_IMPORTANCE} trials have finished (${n} so far).</p>`
    }
    return html`<h2>Parameter importance</h2>
      <div class="bars">${imp.map(x => html`<div class="row" data-param=${x.name}>
        <span class="mono">${x.name}</span>
        <div class="track"><div class="bar" style=${styleMap({ width: `${(x.importance * 100).toFixed(1)}%` })}></div></div>
        <span class="pct">${(x.importance * 100).toFixed(0)}%</span></div>`)}</div>
      <p class="muted">Share of the metric's variance explained by binning trials on each parameter (first order, ${finishedTrials(this.trials).length} finished trials).</p>`
  }
}

declare global {
  interface HTMLElementTagNameMap { 'st-param-importance': StParamImportance }
}
