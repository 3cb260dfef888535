/**
 * `<st-regression-results .validation .metrics>`: a regression run's validation rows — predicted
 * vs actual (a seeded sample of at most SAMPLE_ROWS rows, with the y = x diagonal), residuals
 * (actual − predicted) against the prediction on the same rows, the histogram of every row's
 * residual — and the run's metrics with R². Presentational; numbers from result-data.ts.
 * Reflects `data-points` (rows drawn) and `data-rows` (validation rows) for tests.
 */
import { LitElement, html, css, nothing, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { ValidationScores } from '../run/config.ts'
import { baseStyles } from './styles.ts'
import type { ChartLine } from './line-chart.ts'
import { histogram, histogramOutline, residuals, rSquared, sampleRows, SAMPLE_ROWS } from './result-data.ts'
import './line-chart.ts'

const COLOUR = '#2f6fde',
  REFERENCE = '#adb5bd'

@customElement('st-regression-results')
export class StRegressionResults extends LitElement {
  static styles = [
    baseStyles,
    css`
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 12px; }
    .metrics { font-variant-numeric: tabular-nums; }
  `,
  ]

  /** The run's validation labels and predictions (V each). */
  @property({ attribute: false }) validation?: ValidationScores
  /** The run's validation metrics by name (TrainSummary.eval). */
  @property({ attribute: false }) metrics: Record<string, number> = {}

  private charts?: ReturnType<typeof chartsOf>

  protected willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('validation')) this.charts = this.validation && chartsOf(this.validation)
  }

  render() {
    const v = this.validation,
      c = this.charts
    if (!v || !c) return nothing
    const drawn = c.drawn
    this.dataset.points = String(drawn)
    this.dataset.rows = String(v.labels.length)
    const named = Object.entries(this.metrics).map(([k, x]) => `${k} ${fmt(x)}`)
    return html`<h2>Validation rows: predicted vs actual, residuals</h2>
      <p class="metrics">${[...named, `R² ${fmt(c.r2)}`].join(' · ')} · ${v.labels.length.toLocaleString('en')} rows${
        drawn < v.labels.length
          ? html` <span class="muted">(plots: a sample of ${drawn.toLocaleString('en')})</span>`
          : nothing
      }</p>
      <div class="charts">
        <st-line-chart class="scatter" heading="Predicted vs actual" x-label="actual" y-label="predicted"
          .lines=${c.scatter}></st-line-chart>
        <st-line-chart class="residuals" heading="Residuals" x-label="predicted" y-label="actual − predicted"
          .lines=${c.residual}></st-line-chart>
        <st-line-chart class="histogram" heading="Residual histogram (all rows)" x-label="actual − predicted"
          y-label="rows" .lines=${c.histogram}></st-line-chart>
      </div>`
  }
}

/** The three charts' lines and R² of `v`. */
function chartsOf(v: ValidationScores) {
  const rows = sampleRows(v.labels.length, SAMPLE_ROWS)
  const actual = Array.from(rows, r => v.labels[r]),
    predicted = Array.from(rows, r => v.scores[r])
  const all = residuals(v.labels, v.scores)
  let lo = Number.POSITIVE_INFINITY,
    hi = Number.NEGATIVE_INFINITY
  for (const x of [...actual, ...predicted])
    if (Number.isFinite(x)) {
      lo = Math.min(lo, x)
      hi = Math.max(hi, x)
    }
  const diagonal: ChartLine[] =
    lo <= hi ? [{ name: 'y = x', colour: REFERENCE, xs: [lo, hi], ys: [lo, hi], dashed: true }] : []
  const pLo = Math.min(...predicted),
    pHi = Math.max(...predicted)
  return {
    scatter: [...diagonal, { name: 'rows', colour: COLOUR, xs: actual, ys: predicted, points: true }],
    residual: [
      ...(pLo <= pHi ? [{ name: 'zero', colour: REFERENCE, xs: [pLo, pHi], ys: [0, 0], dashed: true }] : []),
      { name: 'rows', colour: COLOUR, xs: predicted, ys: Array.from(rows, r => all[r]), points: true },
    ],
    histogram: [{ name: 'rows', colour: COLOUR, ...histogramOutline(histogram(all)) }],
    r2: rSquared(v.labels, v.scores),
    drawn: rows.length,
  }
}

/** A metric to 4 significant digits ('–' when undefined). */
function fmt(x: number): string {
  return Number.isFinite(x) ? String(Number(x.toPrecision(4))) : '–'
}

declare global {
  interface HTMLElementTagNameMap {
    'st-regression-results': StRegressionResults
  }
}
