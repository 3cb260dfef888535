/**
 * `<st-best-chart .trials=${t} direction="maximize">`: the best validation metric reported so far
 * against seconds since the sweep's first trial started (uPlot, stepped line). Reflects
 * `data-points` for tests.
 */
import { LitElement, html, css, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import uPlot from 'uplot'
import { PlotSlot, plotStyles } from './plot.ts'
import { bestSoFar } from './sweep-chart-data.ts'
import { baseStyles } from './styles.ts'
import type { TrialRecord } from './types.ts'

@customElement('st-best-chart')
export class StBestChart extends LitElement {
  static styles = [baseStyles, plotStyles, css`.plot { min-height: 200px; }`]

  @property({ attribute: false }) trials: TrialRecord[] = []
  @property() direction: 'maximize' | 'minimize' = 'maximize'
  @property() metricLabel = 'metric'
  @property({ type: Number }) width = 620

  private readonly chart = new PlotSlot()

  render() {
    return html`<h2>Best so far</h2>
      ${this.trials.some(t => t.curve.length) ? '' : html`<div class="muted empty">Appears with the first reported metric.</div>`}
      <div class="plot"></div>`
  }

  protected updated(changed: PropertyValues<this>): void {
    if (!changed.has('trials') && !changed.has('direction') && !changed.has('width')) return
    const data = bestSoFar(this.trials, this.direction)
    this.dataset.points = String(data[0].length)
    if (data[0].length === 0) return this.chart.clear()
    this.chart.draw(
      this.renderRoot.querySelector<HTMLElement>('.plot')!,
      {
        width: this.width,
        height: 180,
        legend: { show: false },
        scales: { x: { time: false } },
        series: [
          { label: 'seconds' },
          {
            label: `best ${this.metricLabel}`,
            stroke: '#2b8a3e',
            width: 2,
            paths: uPlot.paths.stepped!({ align: 1 }),
            points: { show: true, size: 5 },
          },
        ],
        axes: [{ label: 'seconds since start' }, { label: `best ${this.metricLabel}` }],
      },
      data,
    )
  }

  disconnectedCallback(): void {
    super.disconnectedCallback()
    this.chart.clear()
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-best-chart': StBestChart
  }
}
