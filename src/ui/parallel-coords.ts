/**
 * `<st-parallel-coords .trials=${t} .space=${s}>`: parameters vs metric as parallel coordinates,
 * drawn with uPlot: x = axis index (one per varying parameter, the metric last), each trial one
 * series with its values normalised to [0, 1] per axis (log axes in log space, categories by
 * index), coloured by its metric (red = best, blue = worst). Each axis is labelled on the plot with
 * its own scale (axisTicks: min at the bottom, max at the top, the middle value — the geometric
 * mean on a log axis, marked "log"; a category axis its categories), and a colour legend maps the
 * metric's worst … best values to the line colours. Reflects `data-series` (lines), `data-axes`
 * and `data-ticks` (the tick texts drawn, per axis: `name:bottom|middle|top`, `;`-separated) for tests.
 */
import { LitElement, html, css, nothing, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type uPlot from 'uplot'
import { PlotSlot, plotStyles } from './plot.ts'
import { formatNumber } from './format.ts'
import { parallelColumns, parallelData, scoreColour, type ParallelAxis, type ParallelData } from './sweep-chart-data.ts'
import { baseStyles } from './styles.ts'
import type { TrialRecord } from './types.ts'

/** The range text under the plot for one axis, e.g. "eta 0.01 – 0.3 (log)". */
export function axisRange(a: ParallelAxis): string {
  if (a.categories) return a.categories.join(' · ')
  return `${formatNumber(a.min)} – ${formatNumber(a.max)}${a.log ? ' (log)' : ''}`
}

/** A tick's text: integers as they are, other numbers to 3 significant digits. */
function tickText(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(3)))
}

/** One tick of an axis: its height in [0, 1] (the lines' normalised scale) and its text. */
export interface AxisTick {
  y: number
  text: string
}

/**
 * The ticks drawn on axis `a`: numeric axes min (y 0), the middle (the arithmetic mean, or the
 * geometric one on a log axis, whose text says "log") and max (y 1); category axes each category at
 * its index (at most 6, then the first and last).
 */
export function axisTicks(a: ParallelAxis): AxisTick[] {
  if (a.categories) {
    const n = a.categories.length
    const shown = n <= 6 ? a.categories.map((_, i) => i) : [0, n - 1]
    return shown.map(i => ({ y: n > 1 ? i / (n - 1) : 0.5, text: a.categories![i].replace(/^"(.*)"$/, '$1') }))
  }
  const mid = a.log ? Math.sqrt(a.min * a.max) : (a.min + a.max) / 2
  return [
    { y: 0, text: tickText(a.min) },
    { y: 0.5, text: `${tickText(mid)}${a.log ? ' log' : ''}` },
    { y: 1, text: tickText(a.max) },
  ]
}

/** Stops of the legend's gradient: worst (score 0) → best (score 1), as scoreColour draws the lines. */
const LEGEND_GRADIENT = `linear-gradient(to right, ${[0, 0.25, 0.5, 0.75, 1].map(scoreColour).join(', ')})`

@customElement('st-parallel-coords')
export class StParallelCoords extends LitElement {
  static styles = [
    baseStyles,
    plotStyles,
    css`
    .plot { min-height: 250px; }
    dl { display: flex; flex-wrap: wrap; gap: 2px 16px; margin: 4px 0 0; font-size: 12px; }
    dt { font-weight: 600; } dd { margin: 0 0 0 4px; }
    .axis { display: flex; }
    .legend { display: flex; align-items: center; gap: 6px; font-size: 12px; margin: 2px 0 4px; }
    .legend .ramp { width: 160px; height: 10px; border-radius: 2px; }
    .legend .value { font-variant-numeric: tabular-nums; }
  `,
  ]

  @property({ attribute: false }) trials: TrialRecord[] = []
  /** The sweep's space JSON (to know which axes are log-scaled). */
  @property({ attribute: false }) space?: Record<string, unknown>
  @property() direction: 'maximize' | 'minimize' = 'maximize'
  @property() metricLabel = 'metric'
  @property({ type: Number }) width = 620

  private readonly chart = new PlotSlot()
  private data: ParallelData = { axes: [], lines: [] }

  render() {
    return html`<h2>Parameters vs ${this.metricLabel}</h2>
      ${this.data.lines.length ? this.legend() : html`<div class="muted empty">Appears when trials report a metric.</div>`}
      <div class="plot"></div>
      <dl>${this.data.axes.map(a => html`<div class="axis"><dt>${a.name}</dt><dd class="mono">${axisRange(a)}</dd></div>`)}</dl>`
  }

  /** The colour legend: line colour by metric value, worst on the left, best on the right. */
  private legend() {
    const m = this.data.axes[this.data.axes.length - 1]
    if (!m) return nothing
    const [worst, best] = this.direction === 'maximize' ? [m.min, m.max] : [m.max, m.min]
    return html`<div class="legend" role="img" aria-label=${`line colour: ${this.metricLabel}, blue ${formatNumber(worst)} (worst) to red ${formatNumber(best)} (best)`}>
      <span>line colour: ${this.metricLabel}</span>
      <span class="value worst">${formatNumber(worst)}</span>
      <span class="ramp" style="background: ${LEGEND_GRADIENT}"></span>
      <span class="value best">${formatNumber(best)}</span>
      <span class="muted">(${this.direction === 'maximize' ? 'higher' : 'lower'} is better)</span></div>`
  }

  protected willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('trials') || changed.has('space') || changed.has('direction')) {
      this.data = parallelData(this.trials, this.direction, this.space, this.metricLabel)
    }
  }

  protected updated(): void {
    const { axes, lines } = this.data
    Object.assign(this.dataset, { series: String(lines.length), axes: String(axes.length) })
    if (lines.length === 0) return this.chart.clear()
    const names = axes.map(a => a.name)
    const ticks = axes.map(axisTicks)
    this.dataset.ticks = axes.map((a, i) => `${a.name}:${ticks[i].map(t => t.text).join('|')}`).join(';')
    this.chart.draw(
      this.renderRoot.querySelector<HTMLElement>('.plot')!,
      {
        width: this.width,
        height: 240,
        legend: { show: false },
        cursor: { show: false },
        scales: { x: { time: false, range: [-0.15, Math.max(1, axes.length - 1) + 0.15] }, y: { range: [0, 1] } },
        series: [
          { label: 'axis' },
          ...lines.map(l => ({
            label: `trial ${l.trial}`,
            stroke: scoreColour(l.score),
            width: 1.5,
            points: { show: true, size: 4 },
          })),
        ],
        axes: [
          {
            splits: () => names.map((_, i) => i),
            values: (_u: unknown, splits: number[]) => splits.map(i => names[i] ?? ''),
            grid: { show: true },
          },
          // Each axis has its own scale, drawn beside it (drawTicks); the shared y axis carries no values.
          { splits: () => [0, 0.5, 1], values: () => ['', '', ''], size: 8 },
        ],
        hooks: { draw: [(u: uPlot) => drawTicks(u, ticks)] },
      },
      parallelColumns(this.data),
    )
  }

  disconnectedCallback(): void {
    super.disconnectedCallback()
    this.chart.clear()
  }
}

/** Writes each axis's ticks on the canvas, right of its vertical line (the last axis: left of it). */
function drawTicks(u: uPlot, ticks: AxisTick[][]): void {
  const ctx = u.ctx
  const ratio = devicePixelRatio || 1
  ctx.save()
  ctx.font = `${11 * ratio}px system-ui, sans-serif`
  ctx.fillStyle = '#495057'
  ctx.textBaseline = 'middle'
  ticks.forEach((axis, i) => {
    const x = u.valToPos(i, 'x', true)
    const last = i === ticks.length - 1
    ctx.textAlign = last ? 'right' : 'left'
    for (const t of axis) {
      // Keep the bottom and top texts inside the plot area.
      const y = u.valToPos(t.y, 'y', true) + (t.y === 0 ? -6 : t.y === 1 ? 6 : 0) * ratio
      ctx.fillText(t.text, x + (last ? -4 : 4) * ratio, y)
    }
  })
  ctx.restore()
}

declare global {
  interface HTMLElementTagNameMap {
    'st-parallel-coords': StParallelCoords
  }
}
