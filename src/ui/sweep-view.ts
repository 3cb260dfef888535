/**
 * `<st-sweep-view .state=${s} .stage=${p} ?active=${running}>`: one sweep, live — header with
 * its table@version, status, the sweep in its strategy's words (tune/trial-state.ts strategyLine),
 * trials per state as Optuna reads them (trialStates: complete, pruned …) and cost, Stop / Resume
 * / Clone-and-edit, a progress bar for the current data stage, the trial table, learning curves,
 * best so far, parallel coordinates, parameter importance and the best-configuration card. (st-app's
 * `<section data-view="sweep" data-sweep=<id>>` holds it.) Fires `sweep-stop`, `sweep-resume`,
 * `sweep-clone` (SweepIdDetail); the result card fires `sweep-download`.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { directionOf } from './sweep-chart-data.ts'
import { baseStyles } from './styles.ts'
import { tableLabel } from './table-label.ts'
import type { ErrorView, ParamImportance, SweepIdDetail, SweepState } from './types.ts'
import {
  rungReached,
  stateCounts,
  STATE_WORDS,
  strategyLine,
  trialStates,
  type OptunaTrialState,
} from '../tune/trial-state.ts'
import './best-chart.ts'
import './error-view.ts'
import './param-importance.ts'
import './parallel-coords.ts'
import './sweep-curves.ts'
import './sweep-result.ts'
import './trial-table.ts'
import { familyOf } from '../models/registry.ts'

/** A data stage in progress (SweepEvent 'stage'); `fraction` in [0, 1] when known. */
export interface StageView {
  message: string
  fraction?: number
}

@customElement('st-sweep-view')
export class StSweepView extends LitElement {
  static styles = [
    baseStyles,
    css`
    :host { display: grid; gap: 14px; grid-template-columns: minmax(0, 1fr); }
    .head { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: baseline; }
    .head h1 { font-size: 18px; margin: 0; }
    .actions { display: flex; gap: 6px; }
    .stage { display: flex; gap: 8px; align-items: center; }
    progress { width: 16em; }
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(580px, 1fr)); gap: 14px; }
    .cost { font-variant-numeric: tabular-nums; }
  `,
  ]

  @property({ attribute: false }) state?: SweepState
  @property({ attribute: false }) stage?: StageView
  /** Parameter importance of `state` (the controller asks window.snaptrain.sweepImportance); undefined until enough trials finished. */
  @property({ attribute: false }) importance?: ParamImportance[]
  /** Why the importance could not be computed. */
  @property({ attribute: false }) importanceError?: string
  /** True while this page runs the sweep (Stop shown instead of Resume). */
  @property({ type: Boolean }) active = false
  @property({ attribute: false }) error?: ErrorView
  /** Chart width in CSS px. */
  @property({ type: Number }) chartWidth = 560

  render() {
    const s = this.state
    if (!s) return nothing
    const dir = directionOf(s),
      metric = s.config.metric ?? 'auc'
    const family = familyOf(s.config.model)
    const resource = family.resource.many
    const states = trialStates(s, family)
    const rungs =
      s.config.strategy === 'asha' ? new Map(s.trials.map(t => [t.id, rungReached(t, s, family)])) : undefined
    return html`${this.header(s, states)}
      ${
        this.stage && this.active
          ? html`<div class="stage" role="status"><span>${this.stage.message}</span>
        ${this.stage.fraction === undefined ? nothing : html`<progress max="1" .value=${this.stage.fraction}></progress>`}</div>`
          : nothing
      }
      ${this.error ? html`<st-error-view .error=${this.error}></st-error-view>` : nothing}
      ${s.error ? html`<st-error-view .error=${{ context: 'The sweep', message: s.error, causes: [] }}></st-error-view>` : nothing}
      <st-sweep-result .state=${s}></st-sweep-result>
      <div><h2>Trials</h2><st-trial-table .trials=${s.trials} .states=${states} .strategy=${s.config.strategy}
        .rungs=${rungs} .metricLabel=${metric}></st-trial-table></div>
      <div class="charts">
        <st-sweep-curves .trials=${s.trials} .states=${states} .best=${s.best?.trial} .resourceLabel=${resource} .metricLabel=${metric} .width=${this.chartWidth}></st-sweep-curves>
        <st-best-chart .trials=${s.trials} .direction=${dir} .metricLabel=${metric} .width=${this.chartWidth}></st-best-chart>
        <st-parallel-coords .trials=${s.trials} .space=${s.config.space} .direction=${dir} .metricLabel=${metric} .width=${this.chartWidth}></st-parallel-coords>
        <st-param-importance .importance=${this.importance} .error=${this.importanceError} .trials=${s.trials}></st-param-importance>
      </div>`
  }

  private header(s: SweepState, states: ReadonlyMap<number, OptunaTrialState>) {
    const c = stateCounts(states)
    const counts = STATE_WORDS.filter(k => c[k] || k === 'pruned')
      .map(k => `${c[k]} ${k}`)
      .join(' · ')
    const saved =
      s.gpuSecondsFullBudget > 0 ? ` (${Math.round((1 - s.gpuSeconds / s.gpuSecondsFullBudget) * 100)}% saved)` : ''
    return html`<div class="head">
        <h1>${s.config.name || `Sweep on ${tableLabel(s.config)}`}</h1>
        ${s.config.name ? html`<span class="table mono">${tableLabel(s.config)}</span>` : nothing}
        <span class="status" data-status=${s.status}>${s.status}${this.active ? '' : s.status === 'running' ? ' (not running in this page)' : ''}</span>
        <span class="muted">${s.config.model} · ${s.config.strategy} · label ${s.config.label} · seed ${s.config.seed ?? 0}</span>
        <div class="actions">
          ${
            this.active
              ? html`<button class="stop" @click=${() => this.fire('sweep-stop', s.id)}>■ Stop</button>`
              : s.status !== 'finished'
                ? html`<button class="resume" @click=${() => this.fire('sweep-resume', s.id)}>▶ Resume</button>`
                : nothing
          }
          <button class="clone" @click=${() => this.fire('sweep-clone', s.id)}>Clone and edit</button>
        </div>
      </div>
      <div class="strategy">${strategyLine(s, familyOf(s.config.model))}</div>
      <div class="muted cost"><span class="counts">${s.trials.length} trials: ${counts}</span> ·
        GPU ${s.gpuSeconds.toFixed(1)} s of ${s.gpuSecondsFullBudget.toFixed(1)} s at full budget${saved} · wall ${s.wallSeconds.toFixed(1)} s</div>`
  }

  private fire(type: 'sweep-stop' | 'sweep-resume' | 'sweep-clone', id: string) {
    const detail: SweepIdDetail = { id }
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-sweep-view': StSweepView
  }
  interface HTMLElementEventMap {
    'sweep-stop': CustomEvent<SweepIdDetail>
    'sweep-clone': CustomEvent<SweepIdDetail>
  }
}
