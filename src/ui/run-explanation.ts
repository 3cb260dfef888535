/**
 * `<st-run-explanation .state .error .explanation>`: what a finished GBDT run shows under its
 * curve — feature importance (type chooser), the SHAP summary of its validation rows and the
 * partial dependence of its monotone-constrained features — or
 * that they are being computed, or why they could not be. Presentational: TrainController asks
 * window.snaptrain explain and sets the properties.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import type { ErrorView, LoadState } from './types.ts'
import type { Explanation } from '../api-types.ts'
import './error-view.ts'
import './feature-importance.ts'
import './shap-summary.ts'
import './partial-dependence.ts'

@customElement('st-run-explanation')
export class StRunExplanation extends LitElement {
  static styles = [
    baseStyles,
    css`
    .charts { display: grid; gap: 16px; grid-template-columns: repeat(auto-fit, minmax(320px, 1fr)); align-items: start; }
    .charts > * { min-width: 0; }
    .status::before { content: '⏳ '; }
  `,
  ]

  @property() state: LoadState = 'idle'
  @property({ attribute: false }) error?: ErrorView
  @property({ attribute: false }) explanation?: Explanation
  /** Validation rows explained at most (the wait note says so). */
  @property({ type: Number, attribute: 'max-rows' }) maxRows = 2000

  render() {
    if (this.state === 'loading')
      return html`<p class="muted status" role="status">Explaining the model: importance, and SHAP values of up to
        ${this.maxRows.toLocaleString('en')} validation rows…</p>`
    if (this.state === 'error') return html`<st-error-view .error=${this.error}></st-error-view>`
    const e = this.explanation
    if (this.state !== 'ready' || !e) return nothing
    return html`<div class="charts">
      <st-feature-importance .importance=${e.importance}></st-feature-importance>
      <st-shap-summary .explanation=${e}></st-shap-summary></div>
      ${e.partialDependence?.length ? html`<st-partial-dependence .curves=${e.partialDependence}></st-partial-dependence>` : nothing}`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-run-explanation': StRunExplanation
  }
}
