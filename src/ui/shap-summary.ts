/**
 * `<st-shap-summary .explanation=${e}>`: SHAP values of a run's validation rows, summarised as
 * the SHAP package does: bars of mean |SHAP| per feature (largest first), and a beeswarm of the
 * top features — one dot per row at its SHAP value, jittered vertically, coloured by the row's
 * feature value (its rank among the explained rows: blue low, red high, grey missing). The
 * beeswarm is drawn on a canvas: thousands of dots are too many DOM nodes. n = rows, F = features.
 */
import { LitElement, html, css, nothing, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { barRows, barStyles, type Bar } from './bars.ts'
import { baseStyles } from './styles.ts'
import type { Explanation } from '../api-types.ts'

/** Features in the beeswarm at most. */
export const SWARM_FEATURES = 10
const BAR_LIMIT = 20
const ROW_PX = 22,
  LABEL_PX = 130,
  AXIS_PX = 24,
  MIN_WIDTH_PX = 280
const LOW = [47, 111, 222],
  HIGH = [217, 72, 15]

/** Each row's rank of `values[i * F + f]` among the rows' non-missing values, in [0, 1]; NaN stays NaN. */
export function valueRanks(values: ArrayLike<number>, rows: number, F: number, f: number): Float64Array {
  const idx = Array.from({ length: rows }, (_, i) => i).filter(i => !Number.isNaN(values[i * F + f]))
  idx.sort((a, b) => values[a * F + f] - values[b * F + f])
  const out = new Float64Array(rows).fill(NaN)
  idx.forEach((i, k) => {
    out[i] = idx.length > 1 ? k / (idx.length - 1) : 0.5
  })
  return out
}

@customElement('st-shap-summary')
export class StShapSummary extends LitElement {
  static styles = [
    baseStyles,
    barStyles,
    css`
    :host { min-width: 0; }
    canvas { display: block; margin-top: 8px; max-width: 100%; }
  `,
  ]

  /** The run's explanation (SHAP values, feature values, row counts). */
  @property({ attribute: false }) explanation?: Explanation

  /** Redraws the beeswarm when the host's width changes (the canvas is sized to it). */
  private readonly resize = new ResizeObserver(() => this.drawSwarm())
  private drawnWidth = 0

  connectedCallback(): void {
    super.connectedCallback()
    this.resize.observe(this)
  }

  disconnectedCallback(): void {
    super.disconnectedCallback()
    this.resize.disconnect()
  }

  render() {
    const e = this.explanation
    if (!e) return nothing
    const shown = impacts(e)
    return html`<h2>SHAP summary</h2>
      <div class="bars">${barRows(shown.slice(0, BAR_LIMIT))}</div>
      <canvas role="img" aria-label="Beeswarm of SHAP values of the top ${Math.min(shown.length, SWARM_FEATURES)} features"></canvas>
      <p class="muted">Mean |SHAP| per feature (the margin's change the feature makes, TreeSHAP) over ${e.rows.toLocaleString('en')}
        of the run's ${e.validRows.toLocaleString('en')} validation rows${e.rows < e.validRows ? ' (an evenly spaced sample)' : ''};
        dots: one per row, blue low to red high feature value, grey missing. Computed on ${e.adapter}.</p>`
  }

  protected updated(changed: PropertyValues<this>): void {
    if (changed.has('explanation')) this.drawSwarm(true)
  }

  /** Draws the beeswarm at the host's width (again only when the data or the width changed). */
  private drawSwarm(force = false): void {
    const e = this.explanation,
      canvas = this.renderRoot.querySelector('canvas')
    const width = Math.max(MIN_WIDTH_PX, Math.floor(this.getBoundingClientRect().width))
    if (!e || !canvas || (!force && width === this.drawnWidth)) return
    this.drawnWidth = width
    const F = e.features.length
    const top = impacts(e).slice(0, SWARM_FEATURES)
    const dpr = globalThis.devicePixelRatio || 1,
      h = top.length * ROW_PX + AXIS_PX
    Object.assign(canvas.style, { width: `${width}px`, height: `${h}px` })
    canvas.width = Math.round(width * dpr)
    canvas.height = Math.round(h * dpr)
    const ctx = canvas.getContext('2d')
    if (!ctx) return
    ctx.scale(dpr, dpr)
    const cols = top.map(b => e.features.indexOf(b.name))
    let lo = 0,
      hi = 0
    for (const f of cols)
      for (let i = 0; i < e.rows; i++) {
        const v = e.shap[i * (F + 1) + f]
        lo = Math.min(lo, v)
        hi = Math.max(hi, v)
      }
    const span = hi - lo || 1,
      plotW = width - LABEL_PX - 8
    const x = (v: number) => LABEL_PX + ((v - lo) / span) * plotW
    ctx.font = '12px system-ui, sans-serif'
    ctx.strokeStyle = '#c9ced8'
    ctx.beginPath()
    ctx.moveTo(x(0), 0)
    ctx.lineTo(x(0), h - AXIS_PX)
    ctx.stroke()
    let points = 0
    cols.forEach((f, k) => {
      const mid = k * ROW_PX + ROW_PX / 2
      ctx.fillStyle = '#1d2330'
      ctx.textBaseline = 'middle'
      ctx.fillText(e.features[f], 4, mid, LABEL_PX - 8)
      const ranks = valueRanks(e.values, e.rows, F, f)
      for (let i = 0; i < e.rows; i++) {
        // Golden-ratio jitter: deterministic, and spreads neighbouring rows evenly over the band.
        const y = mid + (((i * 0.618034) % 1) - 0.5) * (ROW_PX - 6)
        ctx.fillStyle = colour(ranks[i])
        ctx.fillRect(x(e.shap[i * (F + 1) + f]) - 1.5, y - 1.5, 3, 3)
        points++
      }
    })
    ctx.fillStyle = '#5b6473'
    ctx.textBaseline = 'alphabetic'
    ctx.fillText(`${lo.toPrecision(3)}`, LABEL_PX, h - 6)
    const right = `${hi.toPrecision(3)}  SHAP value`
    ctx.fillText(right, width - 8 - ctx.measureText(right).width, h - 6)
    // Reflected for tests: what the beeswarm holds.
    this.dataset.points = String(points)
    this.dataset.features = top.map(b => b.name).join(',')
  }
}

/** Features with a non-zero mean |SHAP| as bars, largest first (the engine's order). */
function impacts(e: Explanation): Bar[] {
  return e.meanAbsShap.filter(m => m.mean_abs_shap > 0).map(m => ({ name: m.feature, value: m.mean_abs_shap }))
}

/** Blue (low) to red (high) with some transparency; grey for a missing value. */
function colour(t: number): string {
  if (Number.isNaN(t)) return 'rgba(134, 142, 150, 0.6)'
  const c = LOW.map((l, j) => Math.round(l + (HIGH[j] - l) * t))
  return `rgba(${c[0]}, ${c[1]}, ${c[2]}, 0.6)`
}

declare global {
  interface HTMLElementTagNameMap {
    'st-shap-summary': StShapSummary
  }
}
