/**
 * `<st-sweep-curves .trials=${t} .states=${s}>`: the learning curves of every trial of a sweep on
 * one uPlot chart (x = resource: boosting rounds or epochs; y = the validation metric). Pruned
 * trials (`states`, tune/trial-state.ts: stopped at a rung, or left at one without promotion) are
 * drawn grey and dashed, so they visibly end early; a trial that was promoted (continued as a
 * later trial) thin; failed ones red and dotted. Reflects `data-series`, `data-points` and
 * `data-stopped` (pruned curves) for tests.
 */
import { LitElement, html, css, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type uPlot from 'uplot'
import { PlotSlot, plotStyles, pointCount, trialColour } from './plot.ts'
import { curvesData } from './sweep-chart-data.ts'
import type { OptunaTrialState } from '../tune/trial-state.ts'
import { baseStyles } from './styles.ts'
import type { TrialRecord } from './types.ts'

/** How a curve is drawn: by state, and whether it was pruned or promoted. */
export type CurveKind = 'normal' | 'best' | 'cut' | 'promoted' | 'failed'

/** Kind of trial `t`'s curve among `trials`, by its state in `states`. */
export function curveKind(
  t: TrialRecord,
  trials: readonly TrialRecord[],
  states: ReadonlyMap<number, OptunaTrialState>,
  best?: number,
): CurveKind {
  if (t.status === 'failed') return 'failed'
  if (t.id === best) return 'best'
  if (states.get(t.id) === 'PRUNED') return 'cut'
  return trials.some(x => x.promotedFrom === t.id) ? 'promoted' : 'normal'
}

/** uPlot series style of one trial's curve. */
export function curveSeries(t: TrialRecord, kind: CurveKind): uPlot.Series {
  const base = { label: `trial ${t.id}`, spanGaps: true, points: { show: true, size: 4 } }
  if (kind === 'cut') return { ...base, stroke: '#9aa1ad', dash: [6, 4], width: 1.5 }
  if (kind === 'failed') return { ...base, stroke: '#c62828', dash: [2, 3], width: 1 }
  return { ...base, stroke: trialColour(t.id), width: kind === 'best' ? 3 : kind === 'promoted' ? 0.75 : 1.5 }
}

@customElement('st-sweep-curves')
export class StSweepCurves extends LitElement {
  static styles = [
    baseStyles,
    plotStyles,
    css`
    .plot { min-height: 250px; }
    .key { font-size: 12px; }
  `,
  ]

  @property({ attribute: false }) trials: TrialRecord[] = []
  /** Each trial's state (tune/trial-state.ts trialStates): pruned ones are drawn cut short. */
  @property({ attribute: false }) states: ReadonlyMap<number, OptunaTrialState> = new Map()
  /** Id of the best trial (drawn thicker). */
  @property({ type: Number }) best?: number
  /** Name of the resource axis, e.g. 'boosting rounds'. */
  @property() resourceLabel = 'resource'
  @property() metricLabel = 'metric'
  @property({ type: Number }) width = 620

  private readonly chart = new PlotSlot()

  render() {
    return html`<h2>Learning curves</h2>
      ${this.trials.some(t => t.curve.length) ? '' : html`<div class="muted empty">Curves appear with the first reported metric.</div>`}
      <div class="plot"></div>
      <div class="muted key">solid: complete / running · thin: promoted to a later trial · grey dashed: pruned (stopped at a rung or not promoted) · red dotted: failed · thick: best</div>`
  }

  protected updated(changed: PropertyValues<this>): void {
    if (!['trials', 'states', 'best', 'width'].some(k => changed.has(k as keyof StSweepCurves))) return
    const { columns, trials } = curvesData(this.trials)
    const kinds = trials.map(t => curveKind(t, this.trials, this.states, this.best))
    Object.assign(this.dataset, {
      series: String(trials.length),
      points: String(pointCount(columns)),
      stopped: String(kinds.filter(k => k === 'cut').length),
    })
    if (trials.length === 0) return this.chart.clear()
    this.chart.draw(
      this.renderRoot.querySelector<HTMLElement>('.plot')!,
      {
        width: this.width,
        height: 240,
        legend: { show: false },
        scales: { x: { time: false } },
        series: [{ label: this.resourceLabel }, ...trials.map((t, i) => curveSeries(t, kinds[i]!))],
        axes: [{ label: this.resourceLabel }, { label: this.metricLabel }],
      },
      columns,
    )
  }

  disconnectedCallback(): void {
    super.disconnectedCallback()
    this.chart.clear()
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-sweep-curves': StSweepCurves
  }
}
