/**
 * `<st-line-chart .lines=${lines}>`: a small SVG line chart for curves that are not a time
 * series — ROC (false → true positive rate), precision–recall, learning curves of several runs
 * overlaid — with a legend. Presentational; the owner thins long curves (src/run/roc.ts thinCurve).
 */
import { LitElement, html, css, svg, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'

/** One line: its legend name, colour and points; `marker`: one highlighted point (a threshold). */
export interface ChartLine {
  name: string
  colour: string
  xs: number[]
  ys: number[]
  marker?: { x: number; y: number }
  /** Dashed (a reference line, e.g. the ROC diagonal). */
  dashed?: boolean
}

const W = 300,
  H = 220,
  PAD = { l: 40, r: 8, t: 8, b: 32 }

@customElement('st-line-chart')
export class StLineChart extends LitElement {
  static styles = [
    baseStyles,
    css`
    svg { width: 100%; max-width: 360px; height: auto; overflow: visible; }
    .axis { stroke: #9aa3b2; stroke-width: 1; }
    text { font-size: 10px; fill: var(--st-muted, #5b6473); }
    .legend { display: flex; flex-wrap: wrap; gap: 4px 12px; font-size: 12px; }
    .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
  `,
  ]

  @property({ attribute: false }) lines: ChartLine[] = []
  @property() heading = ''
  @property({ attribute: 'x-label' }) xLabel = ''
  @property({ attribute: 'y-label' }) yLabel = ''
  /** Fixed domains ([0, 1] for rates); default: the data's range. */
  @property({ attribute: false }) xDomain?: [number, number]
  @property({ attribute: false }) yDomain?: [number, number]

  render() {
    const drawn = this.lines.filter(l => l.xs.length > 0)
    this.dataset.lines = String(drawn.filter(l => !l.dashed).length)
    const [x0, x1] = this.xDomain ?? range(drawn.flatMap(l => l.xs))
    const [y0, y1] = this.yDomain ?? range(drawn.flatMap(l => l.ys))
    const sx = (x: number) => PAD.l + ((x - x0) / (x1 - x0 || 1)) * (W - PAD.l - PAD.r)
    const sy = (y: number) => H - PAD.b - ((y - y0) / (y1 - y0 || 1)) * (H - PAD.t - PAD.b)
    const path = (l: ChartLine) =>
      l.xs
        .map((x, i) => [x, l.ys[i]] as const)
        .filter(([, y]) => Number.isFinite(y))
        .map(([x, y]) => `${sx(x).toFixed(1)},${sy(y).toFixed(1)}`)
        .join(' ')
    return html`${this.heading ? html`<h2>${this.heading}</h2>` : nothing}
      <svg viewBox="0 0 ${W} ${H}" role="img" aria-label=${this.heading || `${this.yLabel} by ${this.xLabel}`}>
        ${svg`<line class="axis" x1=${PAD.l} y1=${H - PAD.b} x2=${W - PAD.r} y2=${H - PAD.b}></line>
          <line class="axis" x1=${PAD.l} y1=${PAD.t} x2=${PAD.l} y2=${H - PAD.b}></line>
          <text x=${PAD.l} y=${H - PAD.b + 12} text-anchor="middle">${fmt(x0)}</text>
          <text x=${W - PAD.r} y=${H - PAD.b + 12} text-anchor="end">${fmt(x1)}</text>
          <text x=${(PAD.l + W - PAD.r) / 2} y=${H - 4} text-anchor="middle">${this.xLabel}</text>
          <text x=${PAD.l - 4} y=${H - PAD.b} text-anchor="end">${fmt(y0)}</text>
          <text x=${PAD.l - 4} y=${PAD.t + 8} text-anchor="end">${fmt(y1)}</text>
          <text x=${10} y=${(PAD.t + H - PAD.b) / 2} text-anchor="middle"
            transform="rotate(-90 10 ${(PAD.t + H - PAD.b) / 2})">${this.yLabel}</text>`}
        ${drawn.map(
          l => svg`<polyline fill="none" stroke=${l.colour} stroke-width=${l.dashed ? 1 : 2}
            stroke-dasharray=${l.dashed ? '4 3' : 'none'} points=${path(l)}></polyline>
            ${l.marker ? svg`<circle cx=${sx(l.marker.x)} cy=${sy(l.marker.y)} r="4" fill=${l.colour}></circle>` : nothing}`,
        )}
      </svg>
      <div class="legend">${drawn
        .filter(l => !l.dashed)
        .map(l => html`<span><span class="swatch" style="background:${l.colour}"></span>${l.name}</span>`)}</div>`
  }
}

function range(vs: number[]): [number, number] {
  const finite = vs.filter(Number.isFinite)
  if (finite.length === 0) return [0, 1]
  return [Math.min(...finite), Math.max(...finite)]
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? v.toFixed(0) : Number(v.toPrecision(3)).toString()
}

declare global {
  interface HTMLElementTagNameMap {
    'st-line-chart': StLineChart
  }
}
