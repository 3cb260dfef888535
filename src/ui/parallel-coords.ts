/**
 * `<st-parallel-coords .trials=${t} .space=${s}>`: parameters vs metric as parallel coordinates,
 * drawn with uPlot: x = axis index (one per varying parameter, the metric last), each trial one
 * series with its values normalised to [0, 1] per axis (log axes in log space, categories by
 * index), coloured by its metric (red = best, blue = worst). Reflects `data-series` (lines) and
 * `data-axes` for tests.
 */
import { LitElement, html, css, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
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
      ${this.data.lines.length ? '' : html`<div class="muted empty">Appears when trials report a metric.</div>`}
      <div class="plot"></div>
      <dl>${this.data.axes.map(a => html`<div class="axis"><dt>${a.name}</dt><dd class="mono">${axisRange(a)}</dd></div>`)}</dl>`
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
          { splits: () => [0, 0.5, 1], values: () => ['low', 'mid', 'high'] },
        ],
      },
      parallelColumns(this.data),
    )
  }

  disconnectedCallback(): void {
    super.disconnectedCallback()
    this.chart.clear()
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-parallel-coords': StParallelCoords
  }
}
