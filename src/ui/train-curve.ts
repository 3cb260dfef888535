/**
 * `<st-train-curve .history=${rounds}>`: the live learning curve of one training run, drawn with
 * uPlot (plot.ts PlotSlot): the metrics to maximise (auc, aucpr, gauc, a ranking's ndcg@k and
 * map@k: src/eval/metrics.ts maximize) on the left axis, marked higher is better, every loss and
 * error (logloss, error@0.3, rmse, mae, mlogloss, merror, …) on the right, marked lower is
 * better, and the recommender's calibration (mean prediction / positive rate, 1 = calibrated) on
 * an axis of its own; one point per boosting round (the recommender: per evaluation). Validation
 * metrics are solid lines; training-rows ones (`train-auc`, …: TrainConfig.evalTrain; the
 * recommender's train_loss) dashed, in the colour of the validation metric they pair with, so
 * train vs valid shows over-fitting. Any metric name the run reports gets a series, colours from a
 * palette. Presentational: the owner appends rounds to `history` as they come.
 */
import { LitElement, html, css, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type uPlot from 'uplot'
import { PlotSlot, plotStyles } from './plot.ts'
import type { Columns } from './sweep-chart-data.ts'
import { baseStyles } from './styles.ts'
import { isTrainMetric, maximize, validationName } from '../eval/metrics.ts'

/** Colours of the usual metrics (the legend shows the names); any other takes the palette's next. */
const COLOURS: Record<string, string> = {
  auc: '#2f6fde',
  logloss: '#d9480f',
  error: '#2b8a3e',
  rmse: '#862e9c',
  train_loss: '#868e96',
  calibration: '#0b7285',
}
const PALETTE = ['#e8590c', '#c2255c', '#5f3dc4', '#5c940d', '#a61e4d', '#1864ab', '#495057', '#e67700']

/** Metrics on an axis of their own: the recommender's calibration (≈ 1, on neither the AUC's nor the loss's scale). */
const OWN_AXIS = new Set(['calibration'])

/** A dashed line: a metric on the training rows. */
const TRAIN_DASH = [6, 4]

/** Which scale a metric is drawn on. */
function scaleOf(metric: string): 'auc' | 'loss' | 'calibration' {
  const base = validationName(metric)
  return OWN_AXIS.has(base) ? 'calibration' : maximize(base) ? 'auc' : 'loss'
}

/** One uPlot series per metric; `colour` is its validation pair's (train-auc takes auc's). */
function seriesOf(metric: string, colour: string): uPlot.Series {
  const train = isTrainMetric(metric) || metric === 'train_loss'
  return {
    label: metric,
    stroke: colour,
    width: 2,
    scale: scaleOf(metric),
    points: { show: true, size: 4 },
    ...(train ? { dash: TRAIN_DASH } : {}),
  }
}

/** Colours by validation name, first-seen order: the usual ones fixed, the rest from the palette. */
function coloursOf(metrics: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  for (const m of metrics) {
    const base = validationName(m)
    if (!out.has(base)) out.set(base, COLOURS[base] ?? PALETTE[out.size % PALETTE.length])
  }
  return out
}

@customElement('st-train-curve')
export class StTrainCurve extends LitElement {
  static styles = [
    baseStyles,
    plotStyles,
    css`
    .plot { min-height: 260px; }
    .empty { color: var(--st-muted, #5b6473); }
  `,
  ]

  /** Metrics per round, the first round first (TrainProgress 'round' events, in order); drawn from x = 1. */
  @property({ attribute: false }) history: Array<Record<string, number>> = []
  /** Plot width in CSS px (height is fixed). */
  @property({ type: Number }) width = 640
  /** What one point is: 'round' (GBDT) or 'evaluation' (recommender, every eval_every steps). */
  @property({ attribute: 'x-label' }) xLabel = 'round'

  private readonly chart = new PlotSlot()
  private metrics: string[] = []

  render() {
    const train = this.history.some(m => Object.keys(m).some(isTrainMetric))
    const what =
      this.xLabel !== 'round' ? 'Metrics' : train ? 'Training (dashed) and validation metrics' : 'Validation metrics'
    return html`<h2>${what} per ${this.xLabel}</h2>
      ${this.history.length ? '' : html`<div class="empty">The curve appears with the first ${this.xLabel}.</div>`}
      <div class="plot"></div>`
  }

  protected updated(changed: PropertyValues<this>): void {
    if (!changed.has('history') && !changed.has('width') && !changed.has('xLabel')) return
    // Reflected for tests and the e2e screenshot check: how many rounds are drawn.
    this.dataset.points = String(this.history.length)
    const metrics = [...new Set(this.history.flatMap(m => Object.keys(m)))]
    if (
      this.history.length === 0 ||
      metrics.join() !== this.metrics.join() ||
      changed.has('width') ||
      changed.has('xLabel')
    )
      this.rebuild(metrics)
    else this.chart.plot?.setData(this.data() as uPlot.AlignedData)
  }

  disconnectedCallback(): void {
    super.disconnectedCallback()
    this.chart.clear()
  }

  private data(): Columns {
    const x = this.history.map((_, r) => r + 1)
    return [x, ...this.metrics.map(k => this.history.map(m => m[k] ?? null))]
  }

  private rebuild(metrics: string[]): void {
    this.chart.clear()
    this.metrics = metrics
    if (this.history.length === 0) return
    const target = this.renderRoot.querySelector<HTMLElement>('.plot')!
    const colours = coloursOf(metrics)
    const higher = [...new Set(metrics.filter(m => scaleOf(m) === 'auc').map(validationName))]
    const axes: uPlot.Axis[] = [
      { label: this.xLabel, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
      { scale: 'auc', label: `${higher.join(', ') || 'auc'} (higher is better)` },
      { scale: 'loss', side: 1, label: 'loss (lower is better)', grid: { show: false } },
    ]
    if (metrics.some(m => scaleOf(m) === 'calibration'))
      axes.push({ scale: 'calibration', side: 1, label: 'calibration (1 = calibrated)', grid: { show: false } })
    const opts: uPlot.Options = {
      width: this.width,
      height: 240,
      scales: { x: { time: false } },
      series: [{ label: this.xLabel }, ...metrics.map(m => seriesOf(m, colours.get(validationName(m))!))],
      axes,
    }
    this.chart.draw(target, opts, this.data())
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-train-curve': StTrainCurve
  }
}
