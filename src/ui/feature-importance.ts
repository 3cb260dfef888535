/**
 * `<st-feature-importance .importance=${byType}>`: a GBDT model's feature importance as bars, with
 * a chooser of XGBoost's five get_score types (weight, gain, cover, total_gain, total_cover).
 * Presentational: the numbers come from the engine (window.snaptrain explain); the chosen type is
 * view state. The chooser is a group of toggle buttons: Tab reaches it, Enter/Space picks, and the
 * arrow keys move along the group as in a radio group.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import { barRows, barStyles, topBars } from './bars.ts'
import { baseStyles } from './styles.ts'
import type { ImportanceType } from '../api-types.ts'

/** The types in XGBoost's documentation order, each with what it measures. */
export const IMPORTANCE_CHOICES: ReadonlyArray<[ImportanceType, string]> = [
  ['weight', 'number of splits on the feature'],
  ['gain', 'mean loss reduction of its splits'],
  ['cover', 'mean hessian sum of the rows its splits see'],
  ['total_gain', 'total loss reduction of its splits'],
  ['total_cover', 'total hessian sum of the rows its splits see'],
]

/** Features shown at most (the rest are summarised in the caption). */
export const MAX_BARS = 20

@customElement('st-feature-importance')
export class StFeatureImportance extends LitElement {
  static styles = [
    baseStyles,
    barStyles,
    css`
    .types { display: flex; flex-wrap: wrap; gap: 6px; margin-bottom: 8px; }
    .types button { font-size: 12.5px; }
  `,
  ]

  /** get_score of every type: feature → score (features never split on absent). */
  @property({ attribute: false }) importance?: Record<ImportanceType, Record<string, number>>

  /** Gain by default: what XGBoost's scikit-learn wrapper reports as feature_importances_. */
  @state() private type: ImportanceType = 'gain'

  render() {
    const imp = this.importance
    if (!imp) return nothing
    const all = Object.entries(imp[this.type] ?? {}).map(([name, value]) => ({ name, value }))
    const bars = topBars(all, MAX_BARS)
    const what = IMPORTANCE_CHOICES.find(c => c[0] === this.type)![1]
    return html`<h2>Feature importance</h2>
      <div class="types" role="group" aria-label="Importance type" @keydown=${this.onKey}>
        ${IMPORTANCE_CHOICES.map(
          ([t, title]) => html`<button type="button" data-type=${t} title=${title}
            aria-pressed=${t === this.type ? 'true' : 'false'} @click=${() => this.choose(t)}>${t}</button>`,
        )}
      </div>
      ${all.length ? html`<div class="bars">${barRows(bars)}</div>` : html`<p class="muted">The model has no splits.</p>`}
      <p class="muted">${this.type}: ${what}, as XGBoost's get_score reports it${
        all.length > bars.length ? ` (top ${bars.length} of ${all.length} features)` : ''
      }.</p>`
  }

  private choose(t: ImportanceType) {
    this.type = t
  }

  /** Arrow keys pick the previous / next type and move the focus with it. */
  private async onKey(e: KeyboardEvent) {
    const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key]
    if (!step) return
    e.preventDefault()
    const i = IMPORTANCE_CHOICES.findIndex(c => c[0] === this.type)
    const next = IMPORTANCE_CHOICES[(i + step + IMPORTANCE_CHOICES.length) % IMPORTANCE_CHOICES.length][0]
    this.choose(next)
    await this.updateComplete
    this.renderRoot.querySelector<HTMLButtonElement>(`button[data-type=${next}]`)?.focus()
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-feature-importance': StFeatureImportance
  }
}
