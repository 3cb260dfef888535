/**
 * `<st-run-results .task .validation .metrics>`: a finished run's results on its validation rows,
 * the view its task calls for (the registry's FamilyDescription.task of the run's parameters):
 * 'binary' → ROC, precision–recall and the confusion matrix at a threshold (st-run-curves);
 * 'regression' → predicted vs actual and residuals (st-regression-results); 'multiclass' → the
 * K × K confusion matrix and per-class scores (st-multiclass-results); 'ranking' → none (its
 * NDCG@k / MAP@k per round is the validation curve). Reflects `data-task`.
 */
import { LitElement, html, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { ValidationScores } from '../run/config.ts'
import type { Task } from '../models/registry.ts'
import './run-curves.ts'
import './regression-results.ts'
import './multiclass-results.ts'

@customElement('st-run-results')
export class StRunResults extends LitElement {
  @property() task: Task = 'binary'
  @property({ attribute: false }) validation?: ValidationScores
  /** The run's validation metrics by name (TrainSummary.eval). */
  @property({ attribute: false }) metrics: Record<string, number> = {}

  render() {
    this.dataset.task = this.task
    const v = this.validation
    if (!v) return nothing
    switch (this.task) {
      case 'binary':
        return html`<st-run-curves .series=${[{ name: 'this run', colour: '#2f6fde', ...v }]}></st-run-curves>`
      case 'regression':
        return html`<st-regression-results .validation=${v} .metrics=${this.metrics}></st-regression-results>`
      case 'multiclass':
        return html`<st-multiclass-results .validation=${v}></st-multiclass-results>`
      default:
        return nothing
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-run-results': StRunResults
  }
}
