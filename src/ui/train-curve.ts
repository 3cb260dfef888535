/**
 * `<st-train-curve .history=${rounds}>`: the live validation curve of one training run, drawn
 * with uPlot (plot.ts PlotSlot): the metrics to maximise (auc, aucpr, gauc, a ranking's ndcg@k and
 * map@k: src/eval/metrics.ts maximize) on the left axis, marked higher is better, every loss and
 * error (logloss, error@0.3, rmse, mae, mlogloss, merror, …) on the right, marked lower is
 * better, one point per boosting round (the recommender: per evaluation); any metric name the
 * run reports gets a series, colours from a palette. Presentational: the owner appends rounds to
 * `history` as they come.
 */
import { LitElement, html, css, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type uPlot from 'uplot'
import { PlotSlot, plotStyles } from './plot.ts'
import type { Columns } from './sweep-chart-data.ts'
import { baseStyles } from './styles.ts'
import { maximize } from '../eval/metrics.ts'

/** Colours of the usual metrics (the legend shows the names); any other takes the palette's next. */
const COLOURS: Record<string, string> = {
  auc: '#2f6fde',
  logloss: '#d9480f',
  error: '#2b8a3e',
  rmse: '#862e9c',
  train_loss: '#868e96',
}
const PALETTE = ['#e8590c', '#0b7285', '#c2255c', '#5f3dc4', '#5c940d', '#a61e4d', '#1864ab', '#495057']

/** One uPlot series per metric (the i-th of the run's): larger-is-better ones on scale 'auc', the others on 'loss'. */
function seriesOf(metric: string, i: number): uPlot.Series {
  return {
    label: metric,
    stroke: COLOURS[metric] ?? PALETTE[i % PALETTE.length],
    width: 2,
    scale: maximize(metric) ? 'auc' : 'loss',
    points: { show: true, size: 4 },
  }
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

  /** Validation metrics per round, round 0 first (TrainProgress 'round' events, in order). */
  @property({ attribute: false }) history: Array<Record<string, number>> = []
  /** Plot width in CSS px (height is fixed). */
  @property({ type: Number }) width = 640
  /** What one point is: 'round' (GBDT) or 'evaluation' (recommender, every eval_every steps). */
  @property({ attribute: 'x-label' }) xLabel = 'round'

  private readonly chart = new PlotSlot()
  private metrics: string[] = []

  render() {
    return html`<h2>${this.xLabel === 'round' ? 'Validation metrics per round' : `Metrics per ${this.xLabel}`}</h2>
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
    const opts: uPlot.Options = {
      width: this.width,
      height: 240,
      scales: { x: { time: false } },
      series: [{ label: this.xLabel }, ...metrics.map(seriesOf)],
      axes: [
        { label: this.xLabel, incrs: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000] },
        { scale: 'auc', label: `${metrics.filter(m => maximize(m)).join(', ') || 'auc'} (higher is better)` },
        { scale: 'loss', side: 1, label: 'loss (lower is better)', grid: { show: false } },
      ],
    }
    this.chart.draw(target, opts, this.data())
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-train-curve': StTrainCurve
  }
}
