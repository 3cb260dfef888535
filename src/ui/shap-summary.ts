/**
 * `<st-shap-summary .explanation=${e}>`: SHAP values of a run's validation rows, summarised as
 * the SHAP package does: bars of mean |SHAP| per feature (largest first), and a beeswarm of the
 * top features — one dot per row at its SHAP value, jittered vertically, coloured by the row's
 * feature value (its rank among the explained rows: blue low, red high, grey missing; a
 * categorical (string) feature's dots by category instead, its most frequent categories each a
 * colour of their own, named in a legend under the beeswarm (Explanation.categories)). The
 * beeswarm is drawn on a canvas: thousands of dots are too many DOM nodes. A multiclass model's
 * explanation (K classes, SHAP values n × K × (F + 1), XGBoost's layout) has a class picker: class 0
 * first (the label's first value), any other class, or all classes — bars of mean |SHAP| summed over
 * the classes (the shap package's multiclass bar), and no beeswarm (a dot's value is one class's).
 * n = rows, F = features, K = classes.
 */
import { LitElement, html, css, nothing, type PropertyValues } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
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

/** Colours of a categorical feature's categories (its most frequent first); the rest are OTHER. */
const CATEGORY_COLOURS = [
  '#2f6fde',
  '#d9480f',
  '#2b8a3e',
  '#862e9c',
  '#e67700',
  '#0b7285',
  '#c2255c',
  '#5c940d',
  '#364fc7',
]
const OTHER = '#868e96'

/** One category in a categorical feature's legend: its name, dot colour and how many explained rows have it. */
export interface CategorySwatch {
  name: string
  colour: string
  rows: number
}

/**
 * The legend of categorical feature `f` over the explained rows (codes in `values`, names in
 * `names`): categories present, most rows first; the first CATEGORY_COLOURS.length each their
 * own colour, the others one 'other' swatch. Missing rows (NaN) are left out (drawn grey).
 */
export function categorySwatches(
  values: ArrayLike<number>,
  rows: number,
  F: number,
  f: number,
  names: readonly string[],
): CategorySwatch[] {
  const counts = new Map<number, number>()
  for (let i = 0; i < rows; i++) {
    const c = values[i * F + f]
    if (!Number.isNaN(c)) counts.set(c, (counts.get(c) ?? 0) + 1)
  }
  const byRows = [...counts].sort((a, b) => b[1] - a[1] || a[0] - b[0])
  const own = byRows.slice(0, CATEGORY_COLOURS.length).map(([c, n], k) => ({
    name: names[c] ?? `code ${c}`,
    colour: CATEGORY_COLOURS[k],
    rows: n,
    code: c,
  }))
  const rest = byRows.slice(CATEGORY_COLOURS.length)
  const swatches: CategorySwatch[] = own.map(({ code: _c, ...s }) => s)
  if (rest.length)
    swatches.push({
      name: `${rest.length} other${rest.length === 1 ? '' : 's'}`,
      colour: OTHER,
      rows: rest.reduce((n, [, k]) => n + k, 0),
    })
  return swatches
}

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
    .classes { display: flex; gap: 6px; align-items: center; margin-bottom: 8px; }
    .categories { font-size: 12px; margin: 4px 0 0; display: flex; flex-wrap: wrap; gap: 2px 10px; }
    .categories .feature { font-weight: 600; }
    .swatch { display: inline-block; width: 9px; height: 9px; border-radius: 50%; margin-right: 3px; vertical-align: baseline; }
  `,
  ]

  /** The run's explanation (SHAP values, feature values, row counts). */
  @property({ attribute: false }) explanation?: Explanation

  /** Redraws the beeswarm when the host's width changes (the canvas is sized to it). */
  private readonly resize = new ResizeObserver(() => this.drawSwarm())
  private drawnWidth = 0
  /** A multiclass explanation's shown class: k, or 'all' (summed over the classes). */
  @state() private shownClass: number | 'all' = 0

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
    const shown = impacts(e, this.shownClass)
    const K = e.classes ?? 1
    const swarm = K === 1 || this.shownClass !== 'all'
    const which =
      K === 1
        ? 'margin'
        : this.shownClass === 'all'
          ? `margins, summed over the ${K} classes`
          : `class ${className(e, this.shownClass)}'s margin`
    return html`<h2>SHAP summary</h2>
      ${K > 1 ? this.classPicker(e, K) : nothing}
      <div class="bars">${barRows(shown.slice(0, BAR_LIMIT))}</div>
      ${
        swarm
          ? html`<canvas role="img" aria-label="Beeswarm of SHAP values of the top ${Math.min(shown.length, SWARM_FEATURES)} features"></canvas>
            ${this.categoryLegends(e, shown.slice(0, SWARM_FEATURES))}`
          : nothing
      }
      <p class="muted">Mean |SHAP| per feature (the change the feature makes to the ${which}, TreeSHAP) over ${e.rows.toLocaleString('en')}
        of the run's ${e.validRows.toLocaleString('en')} validation rows${e.rows < e.validRows ? ' (an evenly spaced sample)' : ''};
        ${swarm ? `dots: one per row, blue low to red high feature value, grey missing${e.categories ? '; categorical features by category (legend under the beeswarm)' : ''}` : 'choose a class for its beeswarm'}. Computed on ${e.adapter}.</p>`
  }

  /** Under the beeswarm: each categorical feature's category colours (Explanation.categories), in the beeswarm's order. */
  private categoryLegends(e: Explanation, top: Bar[]) {
    const cats = e.categories
    if (!cats) return nothing
    const F = e.features.length
    return top
      .filter(b => cats[b.name])
      .map(b => {
        const swatches = categorySwatches(e.values, e.rows, F, e.features.indexOf(b.name), cats[b.name])
        return html`<div class="categories" data-feature=${b.name}><span class="feature">${b.name}</span>${swatches.map(
          s =>
            html`<span class="category" data-category=${s.name} title=${`${s.rows} of the ${e.rows} rows`}><i class="swatch" style="background: ${s.colour}"></i>${s.name}</span>`,
        )}</div>`
      })
  }

  /** The class picker of a multiclass explanation: each class by its label value, then all classes. */
  private classPicker(e: Explanation, K: number) {
    const pick = (ev: Event) => {
      const v = (ev.target as HTMLSelectElement).value
      this.shownClass = v === 'all' ? 'all' : Number(v)
    }
    return html`<div class="classes"><label for="shap-class">Class</label>
      <select id="shap-class" @change=${pick}>
        ${Array.from({ length: K }, (_, k) => html`<option value=${k} ?selected=${this.shownClass === k}>${className(e, k)}</option>`)}
        <option value="all" ?selected=${this.shownClass === 'all'}>all classes (summed)</option>
      </select></div>`
  }

  protected willUpdate(changed: PropertyValues<this>): void {
    // A new explanation starts at class 0.
    if (changed.has('explanation')) this.shownClass = 0
  }

  protected updated(changed: PropertyValues): void {
    if (changed.has('explanation') || changed.has('shownClass')) this.drawSwarm(true)
  }

  /** Draws the beeswarm at the host's width (again only when the data or the width changed). */
  private drawSwarm(force = false): void {
    const e = this.explanation,
      canvas = this.renderRoot.querySelector('canvas')
    const width = Math.max(MIN_WIDTH_PX, Math.floor(this.getBoundingClientRect().width))
    if (e && !canvas) {
      this.dataset.points = '0'
      this.dataset.features = ''
    }
    if (!e || !canvas || (!force && width === this.drawnWidth)) return
    this.drawnWidth = width
    const F = e.features.length
    const k = this.shownClass === 'all' ? 0 : this.shownClass
    // Row i's SHAP value of feature f for the shown class (K = 1: the row's).
    const phi = (i: number, f: number) => e.shap[(i * (e.classes ?? 1) + k) * (F + 1) + f]
    const top = impacts(e, this.shownClass).slice(0, SWARM_FEATURES)
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
        const v = phi(i, f)
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
      const dotColour = this.dotColours(e, f)
      for (let i = 0; i < e.rows; i++) {
        // Golden-ratio jitter: deterministic, and spreads neighbouring rows evenly over the band.
        const y = mid + (((i * 0.618034) % 1) - 0.5) * (ROW_PX - 6)
        ctx.fillStyle = dotColour(i)
        ctx.fillRect(x(phi(i, f)) - 1.5, y - 1.5, 3, 3)
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
    this.dataset.range = `${lo},${hi}`
  }

  /**
   * Row i's dot colour for feature f: a categorical feature's category colour (categorySwatches;
   * grey missing), any other feature's value rank, blue low to red high.
   */
  private dotColours(e: Explanation, f: number): (i: number) => string {
    const F = e.features.length
    const names = e.categories?.[e.features[f]]
    if (!names) {
      const ranks = valueRanks(e.values, e.rows, F, f)
      return i => colour(ranks[i])
    }
    const swatches = categorySwatches(e.values, e.rows, F, f, names)
    const byName = new Map(swatches.map(s => [s.name, s.colour]))
    return i => {
      const c = e.values[i * F + f]
      if (Number.isNaN(c)) return colour(NaN)
      return `${byName.get(names[c] ?? `code ${c}`) ?? OTHER}b3`
    }
  }
}

/**
 * Features with a non-zero mean |SHAP| as bars, largest first (the engine's order): of class
 * `shown` of a multiclass explanation, else (one output, or 'all') the engine's overall means.
 */
function impacts(e: Explanation, shown: number | 'all' = 'all'): Bar[] {
  const means = shown === 'all' || !e.meanAbsShapByClass ? e.meanAbsShap : e.meanAbsShapByClass[shown]
  return means.filter(m => m.mean_abs_shap > 0).map(m => ({ name: m.feature, value: m.mean_abs_shap }))
}

/** Class k's name: the label's value when the model has them, else k. */
function className(e: Explanation, k: number): string {
  return String(e.labelValues?.[k] ?? k)
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
