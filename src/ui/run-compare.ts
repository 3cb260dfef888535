/**
 * `<st-run-compare .runs=${two}>`: two kept runs side by side, called by their names as the home list
 * calls them — the headline metrics and the parameters that differ first, the learning curves
 * overlaid metric by metric and, for binary runs, the ROC / precision–recall curves overlaid on the
 * validation rows, then the parameters both runs share (folded).
 * Presentational.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { StoredRun, StoredRunData } from '../api-types.ts'
import { baseStyles } from './styles.ts'
import { runLine, runName } from './run-list.ts'
import type { CurveSeries } from './run-curves.ts'
import './line-chart.ts'
import './run-curves.ts'
import { familyOf } from '../models/registry.ts'
import { isTrainMetric, TRAIN_PREFIX } from '../eval/metrics.ts'

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
    details.same { margin-top: 12px; }
    .curves { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 12px; margin: 12px 0; }
    tr.differs td { background: #fff4e0; }
  `,
  ]

  @property({ attribute: false }) runs: ComparedRun[] = []

  render() {
    if (this.runs.length < 2) return nothing
    const keys = [...new Set(this.runs.flatMap(c => Object.keys(c.run.params)))].sort()
    const show = (v: unknown) => (v === undefined ? '–' : JSON.stringify(v))
    const metrics = [...new Set(this.runs.flatMap(c => c.run.metrics.flatMap(m => Object.keys(m))))].filter(
      // Training-rows metrics (train-auc, …) are drawn dashed in their validation metric's chart.
      k => !['step', 'epoch', 'lr', 'elapsed_seconds'].includes(k) && !isTrainMetric(k),
    )
    // ROC and precision–recall only mean something for binary runs (the registry's task of the run's parameters).
    const series: CurveSeries[] = this.runs.flatMap(c =>
      c.data?.validation && familyOf(c.run.model).task(c.run.params) === 'binary'
        ? [{ name: runName(c.run), colour: c.colour, ...c.data.validation }]
        : [],
    )
    const values = keys.map(k => ({ k, vs: this.runs.map(c => show(c.run.params[k])) }))
    const differ = values.filter(({ vs }) => vs.some(v => v !== vs[0]))
    const same = values.filter(({ vs }) => vs.every(v => v === vs[0]))
    const row = ({ k, vs }: { k: string; vs: string[] }, differs: boolean) =>
      html`<tr class=${differs ? 'differs' : ''} data-param=${k}><td>${k}</td>${vs.map(v => html`<td class="mono">${v}</td>`)}</tr>`
    const head = html`<tr><th>parameter</th>${this.runs.map(c => html`<th style="color:${c.colour}">${runName(c.run)}</th>`)}</tr>`
    return html`<h2>Compare runs</h2>
      <table class="params">
        ${head}
        <tr><td>run</td>${this.runs.map(c => html`<td>${runLine(c.run)}</td>`)}</tr>
        ${differ.map(v => row(v, true))}
        ${differ.length ? nothing : html`<tr><td colspan=${this.runs.length + 1} class="muted">no parameter differs</td></tr>`}
      </table>
      <div class="curves">${metrics.map(
        m => html`<st-line-chart class="learning" heading=${`${m} per ${this.unit()}`} x-label=${this.unit()} y-label=${m}
          .lines=${this.runs.flatMap(c => {
            const xs = c.run.metrics.map((_, r) => r + 1)
            const line = {
              name: runName(c.run),
              colour: c.colour,
              xs,
              ys: c.run.metrics.map(row => row[m] ?? Number.NaN),
            }
            const train = c.run.metrics.map(row => row[`${TRAIN_PREFIX}${m}`] ?? Number.NaN)
            return train.some(Number.isFinite)
              ? [line, { name: `${line.name} (training rows)`, colour: c.colour, xs, ys: train, dashed: true }]
              : [line]
          })}></st-line-chart>`,
      )}</div>
      ${series.length ? html`<st-run-curves .series=${series}></st-run-curves>` : nothing}
      ${
        same.length
          ? html`<details class="same"><summary>${same.length} parameters the same in both</summary>
            <table class="params">${head}${same.map(v => row(v, false))}</table></details>`
          : nothing
      }`
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
