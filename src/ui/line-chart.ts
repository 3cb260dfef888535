/**
 * `<st-line-chart .lines=${lines}>`: a small line chart for curves that are not a time series —
 * ROC (false → true positive rate), precision–recall, learning curves of several runs overlaid,
 * a regression's predicted vs actual as dots (ChartLine.points) — with a legend. Drawn with
 * uPlot in faceted mode (`mode: 2`: each line has its own xs) through
 * plot.ts PlotSlot. Presentational; the owner thins long curves (src/run/roc.ts thinCurve).
 * Reflects `data-lines` (the solid lines drawn) for tests.
 */
import { LitElement, html, css, nothing, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import uPlot from 'uplot'
import { PlotSlot, plotStyles, type FacetedData } from './plot.ts'
import { baseStyles } from './styles.ts'

/** One line: its legend name, colour and points; `marker`: one highlighted point (a threshold). */
export interface ChartLine {
  name: string
  colour: string
  xs: number[]
  ys: number[]
  marker?: { x: number; y: number }
  /** Dashed (a reference line, e.g. the ROC diagonal); left out of the legend. */
  dashed?: boolean
  /** Drawn as unconnected dots (a scatter plot: predicted vs actual), not a line. */
  points?: boolean
}

const HEIGHT = 240,
  MAX_WIDTH = 360

/** Class of the series whose legend rows are hidden (reference lines, markers); see the styles. */
const UNLISTED = 'unlisted'

/** The line's points where both coordinates are finite; the line is drawn straight across the rest. */
function finitePoints(l: ChartLine): [number[], number[]] {
  const xs: number[] = [],
    ys: number[] = []
  l.xs.forEach((x, i) => {
    const y = l.ys[i]
    if (!Number.isFinite(x) || y === undefined || !Number.isFinite(y)) return
    xs.push(x)
    ys.push(y)
  })
  return [xs, ys]
}

/** uPlot series of one line: a straight-segment path without points; a dashed one thin and unlisted. */
function lineSeries(l: ChartLine): uPlot.Series {
  if (l.points)
    return {
      label: l.name,
      stroke: l.colour,
      fill: l.colour,
      paths: uPlot.paths.points!(),
      points: { show: false, size: 4, width: 0 },
    }
  const base = { label: l.name, stroke: l.colour, paths: uPlot.paths.linear!(), points: { show: false } }
  return l.dashed ? { ...base, width: 1, dash: [4, 3], class: UNLISTED } : { ...base, width: 2 }
}

/** uPlot series of a line's marker (the line is series `lineIdx`): one visible point, shown with its line. */
function markerSeries(l: ChartLine, lineIdx: number): uPlot.Series {
  return {
    label: `${l.name} marker`,
    stroke: l.colour,
    class: UNLISTED,
    paths: () => null,
    // `filter` names the point: faceted mode has no shared index window to draw points from.
    points: {
      show: u => u.series[lineIdx]!.show !== false,
      filter: (_u, _i, show) => (show ? [0] : null),
      size: 8,
      fill: l.colour,
      stroke: l.colour,
    },
  }
}

/** uPlot series and faceted data of `lines`: each line, then its marker (if any) right after it. */
function facets(lines: readonly ChartLine[]): { series: uPlot.Series[]; data: FacetedData } {
  const series: uPlot.Series[] = [{}],
    data: FacetedData = [null]
  for (const l of lines) {
    series.push(lineSeries(l))
    data.push(finitePoints(l))
    if (!l.marker) continue
    series.push(markerSeries(l, series.length - 1))
    data.push([[l.marker.x], [l.marker.y]])
  }
  return { series, data }
}

/** A linear scale: fixed to `domain` when given, else ranged on the data. */
function scale(domain?: [number, number]): uPlot.Scale {
  return domain ? { time: false, auto: false, range: domain } : { time: false }
}

@customElement('st-line-chart')
export class StLineChart extends LitElement {
  static styles = [
    baseStyles,
    plotStyles,
    css`
    .plot { max-width: ${MAX_WIDTH}px; min-height: ${HEIGHT}px; }
    .u-legend { font-size: 12px; }
    .u-legend tr.unlisted { display: none; }
  `,
  ]

  @property({ attribute: false }) lines: ChartLine[] = []
  @property() heading = ''
  @property({ attribute: 'x-label' }) xLabel = ''
  @property({ attribute: 'y-label' }) yLabel = ''
  /** Fixed domains ([0, 1] for rates); default: the data's range. */
  @property({ attribute: false }) xDomain?: [number, number]
  @property({ attribute: false }) yDomain?: [number, number]

  private readonly chart = new PlotSlot()
  /** Follows the element's width (the chart narrows with its column, up to MAX_WIDTH). */
  private readonly resize = new ResizeObserver(() => {
    const width = this.width()
    if (this.chart.plot && this.chart.plot.width !== width) this.chart.plot.setSize({ width, height: HEIGHT })
  })

  private width(): number {
    return Math.min(MAX_WIDTH, this.clientWidth || MAX_WIDTH)
  }

  render() {
    return html`${this.heading ? html`<h2>${this.heading}</h2>` : nothing}
      <div class="plot" role="figure" aria-label=${this.heading || `${this.yLabel} by ${this.xLabel}`}></div>`
  }

  protected updated(changed: PropertyValues<this>): void {
    const inputs = ['lines', 'xLabel', 'yLabel', 'xDomain', 'yDomain'] as const
    if (!inputs.some(k => changed.has(k))) return
    const drawn = this.lines.filter(l => l.xs.length > 0)
    this.dataset.lines = String(drawn.filter(l => !l.dashed).length)
    if (drawn.length === 0) return this.chart.clear()
    const { series, data } = facets(drawn)
    this.chart.draw(
      this.renderRoot.querySelector<HTMLElement>('.plot')!,
      {
        mode: 2,
        width: this.width(),
        height: HEIGHT,
        legend: { live: false },
        scales: { x: scale(this.xDomain), y: scale(this.yDomain) },
        series,
        axes: [{ label: this.xLabel }, { label: this.yLabel }],
      },
      data,
    )
  }

  connectedCallback(): void {
    super.connectedCallback()
    this.resize.observe(this)
    // Moved in the page: draw again what disconnecting cleared.
    if (this.hasUpdated) this.requestUpdate('lines')
  }

  disconnectedCallback(): void {
    super.disconnectedCallback()
    this.resize.disconnect()
    this.chart.clear()
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-line-chart': StLineChart
  }
}
