/**
 * `<st-run-curves .series=${runs}>`: ROC and precision–recall curves of one or more runs on their
 * validation rows, overlaid, and each run's confusion matrix at a threshold the user moves (a
 * slider and a number box; a row is called positive when its score is ≥ the threshold). The
 * curves come from src/run/roc.ts; the ROC's area is shown next to each run's name. The threshold
 * starts at the first run's base-rate threshold (baseRateThreshold), not 0.5, and again when
 * another run's scores come. Reflects `data-threshold`.
 */
import { LitElement, html, css, nothing, type PropertyValues } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { confusionAt, thinCurve, thresholdCurves, type ThresholdCurves } from '../run/roc.ts'
import { baseStyles } from './styles.ts'
import type { ChartLine } from './line-chart.ts'
import './line-chart.ts'

/** One run's validation scores, with its legend name and colour. */
export interface CurveSeries {
  name: string
  colour: string
  scores: Float32Array
  labels: Float32Array
}

/**
 * Where the threshold view starts: the threshold at which the rows called positive are as many as
 * the positive rows (the predicted positive rate equals the validation base rate, so precision =
 * recall there), i.e. the P-th highest score for P positives, floored to 4 decimals so the box
 * shows it short (ties and the flooring may call a few more rows positive). On an 8 % base rate
 * this is near the top 8 % of scores, where 0.5 may call almost nothing positive; unlike the base
 * rate itself as a probability cut it stays right for uncalibrated scores (scale_pos_weight, a
 * margin). 0.5 without positives or negatives.
 */
export function baseRateThreshold(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  let positives = 0
  for (let i = 0; i < labels.length; i++) if (labels[i] > 0.5) positives++
  if (positives === 0 || positives === labels.length) return 0.5
  const sorted = Float64Array.from(scores).sort()
  const cut = sorted[sorted.length - positives]
  return Number.isFinite(cut) ? Math.min(1, Math.max(0, Math.floor(cut * 1e4) / 1e4)) : 0.5
}

@customElement('st-run-curves')
export class StRunCurves extends LitElement {
  static styles = [
    baseStyles,
    css`
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(240px, 1fr)); gap: 12px; }
    .threshold { display: flex; gap: 8px; align-items: center; margin: 8px 0; }
    .threshold input[type='range'] { flex: 1; max-width: 320px; }
    .threshold input[type='number'] { width: 72px; }
    .matrices { display: flex; flex-wrap: wrap; gap: 16px; }
    table.confusion { width: auto; }
    table.confusion td { text-align: right; font-variant-numeric: tabular-nums; }
  `,
  ]

  @property({ attribute: false }) series: CurveSeries[] = []
  @state() private threshold = 0.5
  private curves: ThresholdCurves[] = []
  /** The scores the threshold started from: a new array (another run) starts it again; the same one keeps the user's. */
  private startedOn?: Float32Array

  protected willUpdate(changed: PropertyValues<this>): void {
    if (!changed.has('series')) return
    this.curves = this.series.map(s => thresholdCurves(s.scores, s.labels))
    const first = this.series[0]
    if (first && first.scores !== this.startedOn) {
      this.startedOn = first.scores
      this.threshold = baseRateThreshold(first.scores, first.labels)
    }
  }

  render() {
    if (this.series.length === 0) return nothing
    this.dataset.auc = this.curves.map(c => String(c.auc)).join(',')
    const t = this.threshold
    this.dataset.threshold = String(t)
    const matrices = this.series.map(s => confusionAt(s.scores, s.labels, t))
    const roc: ChartLine[] = [
      { name: 'chance', colour: '#adb5bd', xs: [0, 1], ys: [0, 1], dashed: true },
      ...this.series.map((s, i) => {
        const c = this.curves[i],
          m = matrices[i]
        const thin = thinCurve(c.roc.fpr, c.roc.tpr)
        const marker = c.roc.fpr.length ? { x: m.fp / c.negatives, y: m.tp / c.positives } : undefined
        return { name: `${s.name} (AUC ${c.auc.toFixed(4)})`, colour: s.colour, xs: thin.xs, ys: thin.ys, marker }
      }),
    ]
    const pr: ChartLine[] = this.series.map((s, i) => {
      const thin = thinCurve(this.curves[i].pr.recall, this.curves[i].pr.precision)
      return { name: s.name, colour: s.colour, xs: thin.xs, ys: thin.ys }
    })
    return html`<h2>Validation rows: ROC, precision–recall, confusion</h2>
      <div class="charts">
        <st-line-chart class="roc" heading="ROC" x-label="false positive rate" y-label="true positive rate"
          .lines=${roc} .xDomain=${[0, 1]} .yDomain=${[0, 1]}></st-line-chart>
        <st-line-chart class="pr" heading="Precision–recall" x-label="recall" y-label="precision"
          .lines=${pr} .xDomain=${[0, 1]} .yDomain=${[0, 1]}></st-line-chart>
      </div>
      <div class="threshold">
        <label for="threshold">Threshold</label>
        <input type="range" id="threshold-range" min="0" max="1" step="0.01" .value=${String(t)}
          aria-label="threshold" @input=${this.onThreshold}>
        <input type="number" id="threshold" min="0" max="1" step="0.01" .value=${String(t)} @change=${this.onThreshold}>
      </div>
      <div class="matrices">${this.series.map((s, i) => this.matrix(s.name, matrices[i]))}</div>`
  }

  private matrix(name: string, m: { tp: number; fp: number; tn: number; fn: number }) {
    const n = m.tp + m.fp + m.tn + m.fn
    const precision = m.tp + m.fp > 0 ? (m.tp / (m.tp + m.fp)).toFixed(3) : '–'
    const recall = m.tp + m.fn > 0 ? (m.tp / (m.tp + m.fn)).toFixed(3) : '–'
    const accuracy = n > 0 ? ((m.tp + m.tn) / n).toFixed(3) : '–'
    return html`<table class="confusion" data-run=${name}>
      <caption class="muted">${name}: precision ${precision} · recall ${recall} · accuracy ${accuracy}</caption>
      <tr><th></th><th>called positive</th><th>called negative</th></tr>
      <tr><th>positive</th><td class="tp">${m.tp}</td><td class="fn">${m.fn}</td></tr>
      <tr><th>negative</th><td class="fp">${m.fp}</td><td class="tn">${m.tn}</td></tr>
    </table>`
  }

  private onThreshold(e: Event) {
    const v = Number((e.target as HTMLInputElement).value)
    if (Number.isFinite(v)) this.threshold = Math.min(1, Math.max(0, v))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-run-curves': StRunCurves
  }
}
