/**
 * Horizontal bars of named non-negative values, largest first, each as a share of the largest:
 * the importance and SHAP summary charts. Plain HTML: a few dozen rows need no chart library;
 * widths go through styleMap (CSSOM), so a strict CSP without 'unsafe-inline' allows them.
 */
import { css, html } from 'lit'
import { styleMap } from 'lit/directives/style-map.js'

/** One bar. */
export interface Bar {
  name: string
  value: number
}

/** Styles of `barRows` (add to the component's static styles). */
export const barStyles = css`
  .row { display: grid; grid-template-columns: minmax(6em, 12em) minmax(0, 1fr) 6em; gap: 8px; align-items: center;
    margin: 2px 0; }
  .name { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  .track { background: var(--st-head, #f6f7fa); border-radius: 3px; height: 12px; }
  .bar { background: var(--st-accent, #2f6fde); border-radius: 3px; height: 12px; }
  .value { text-align: right; font-variant-numeric: tabular-nums; }
`

/** A bar's value: whole numbers (split counts) in full, others to 4 significant digits (a chart, not a table). */
export function barValue(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(4)))
}

/** `bars` sorted by value (descending, then by name), at most `limit` of them. */
export function topBars(bars: readonly Bar[], limit: number): Bar[] {
  return [...bars].sort((a, b) => b.value - a.value || a.name.localeCompare(b.name)).slice(0, limit)
}

/** The rows of `bars` in the given order, each a `.row` with `data-name` and `data-value`. */
export function barRows(bars: readonly Bar[]) {
  const max = bars.reduce((m, b) => Math.max(m, b.value), 0)
  return bars.map(
    b => html`<div class="row" data-name=${b.name} data-value=${String(b.value)}>
      <span class="mono name" title=${b.name}>${b.name}</span>
      <div class="track"><div class="bar" style=${styleMap({ width: `${max > 0 ? ((b.value / max) * 100).toFixed(1) : 0}%` })}></div></div>
      <span class="value">${barValue(b.value)}</span></div>`,
  )
}
