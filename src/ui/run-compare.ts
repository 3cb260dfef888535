/**
 * `<st-run-compare .runs=${two}>`: two kept runs side by side — the parameters that differ (all
 * of them, differences marked), the headline metrics, the learning curves overlaid metric by
 * metric and, for binary runs, the ROC / precision–recall curves overlaid on the validation rows.
 * Presentational.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { StoredRun, StoredRunData } from '../api-types.ts'
import { baseStyles } from './styles.ts'
import { runLine } from './run-list.ts'
import type { CurveSeries } from './run-curves.ts'
import './line-chart.ts'
import './run-curves.ts'
import { familyOf } from '../models/registry.ts'

/** A run in the comparison, with its data once loaded and its colour. */
export interface ComparedRun {
  run: StoredRun
  data?: StoredRunData
  colour: string
}

@customElement('st-run-compare')
export class StRunCompare extends LitElement {
  static styles = [
    baseStyles,
    css`
    .curves { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 12px; margin: 12px 0; }
    tr.differs td { background: #fff4e0; }
  `,
  ]

  @property({ attribute: false }) runs: ComparedRun[] = []

  render() {
    if (this.runs.length < 2) return nothing
    const name = (c: ComparedRun, i: number) => `#${i + 1} ${c.run.table.name}`
    const keys = [...new Set(this.runs.flatMap(c => Object.keys(c.run.params)))].sort()
    const show = (v: unknown) => (v === undefined ? '–' : JSON.stringify(v))
    const metrics = [...new Set(this.runs.flatMap(c => c.run.metrics.flatMap(m => Object.keys(m))))].filter(
      k => !['step', 'epoch', 'lr', 'elapsed_seconds'].includes(k),
    )
    // ROC and precision–recall only mean something for binary runs (the registry's task of the run's parameters).
    const series: CurveSeries[] = this.runs.flatMap((c, i) =>
      c.data?.validation && familyOf(c.run.model).task(c.run.params) === 'binary'
        ? [{ name: name(c, i), colour: c.colour, ...c.data.validation }]
        : [],
    )
    return html`<h2>Compare runs</h2>
      <table class="params">
        <tr><th>parameter</th>${this.runs.map((c, i) => html`<th style="color:${c.colour}">${name(c, i)}</th>`)}</tr>
        <tr><td>run</td>${this.runs.map(c => html`<td>${runLine(c.run)}</td>`)}</tr>
        ${keys.map(k => {
          const vs = this.runs.map(c => show(c.run.params[k]))
          return html`<tr class=${vs.every(v => v === vs[0]) ? '' : 'differs'} data-param=${k}>
            <td>${k}</td>${vs.map(v => html`<td class="mono">${v}</td>`)}</tr>`
        })}
      </table>
      <div class="curves">${metrics.map(
        m => html`<st-line-chart class="learning" heading=${`${m} per ${this.unit()}`} x-label=${this.unit()} y-label=${m}
          .lines=${this.runs.map((c, i) => ({
            name: name(c, i),
            colour: c.colour,
            xs: c.run.metrics.map((_, r) => r + 1),
            ys: c.run.metrics.map(row => row[m] ?? Number.NaN),
          }))}></st-line-chart>`,
      )}</div>
      ${series.length ? html`<st-run-curves .series=${series}></st-run-curves>` : nothing}`
  }

  private unit(): string {
    // The families' evaluation unit when the runs share one ('round'), else the general 'evaluation'.
    const units = new Set(this.runs.map(c => familyOf(c.run.model).evaluation))
    return units.size > 1 ? 'evaluation' : ([...units][0] ?? familyOf().evaluation)
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-run-compare': StRunCompare
  }
}
