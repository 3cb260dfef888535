/**
 * `<st-multiclass-results .validation>`: a multiclass run's validation rows — the K × K confusion
 * matrix (rows = true class, columns = predicted class: the argmax of the row's K probabilities),
 * each cell shaded by its share of the true class, labelled with the class names (the label
 * dictionary's values, else 0…K−1) — and per-class precision, recall, F1 and support, with the
 * accuracy and macro F1. Presentational; numbers from result-data.ts. Cells carry `data-true`
 * and `data-pred`.
 */
import { LitElement, html, css, nothing, type PropertyValues } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { styleMap } from 'lit/directives/style-map.js'
import type { ValidationScores } from '../run/config.ts'
import { baseStyles } from './styles.ts'
import { classCount, classScores, confusionMatrix, predictedClasses, type ClassScores } from './result-data.ts'

interface Computed {
  names: string[]
  matrix: number[][]
  scores: ClassScores[]
  correct: number
  rows: number
}

@customElement('st-multiclass-results')
export class StMulticlassResults extends LitElement {
  static styles = [
    baseStyles,
    css`
    .tables { display: flex; flex-wrap: wrap; gap: 16px; align-items: start; }
    .wrap { overflow-x: auto; max-width: 100%; }
    table { width: auto; }
    td { text-align: right; font-variant-numeric: tabular-nums; }
    th.corner { font-weight: normal; }
  `,
  ]

  /** The run's validation labels (class 0…K−1) and V × K probabilities. */
  @property({ attribute: false }) validation?: ValidationScores
  private computed?: Computed | Error

  protected willUpdate(changed: PropertyValues<this>): void {
    if (!changed.has('validation')) return
    try {
      this.computed = this.validation && computedOf(this.validation)
    } catch (e) {
      this.computed = e as Error
    }
  }

  render() {
    const c = this.computed
    if (!c) return nothing
    if (c instanceof Error) return html`<p class="muted" role="alert">${c.message}</p>`
    const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(3) : '–')
    // Macro F1: the mean over the K classes, a class without one counting 0 (as scikit-learn's f1_score).
    const f1s = c.scores.map(s => s.f1).filter(Number.isFinite)
    const macro = f1s.length ? f1s.reduce((a, b) => a + b, 0) / c.scores.length : Number.NaN
    return html`<h2>Validation rows: confusion matrix, per-class scores</h2>
      <p>accuracy ${fmt(c.correct / c.rows)} · macro F1 ${fmt(macro)} · ${c.rows.toLocaleString('en')} rows ·
        ${c.names.length} classes</p>
      <div class="tables">
        <div class="wrap"><table class="confusion-matrix">
          <caption class="muted">rows: true class · columns: predicted class</caption>
          <tr><th class="corner">true \\ predicted</th>${c.names.map(n => html`<th>${n}</th>`)}</tr>
          ${c.matrix.map((row, t) => {
            const support = c.scores[t].support
            return html`<tr><th>${c.names[t]}</th>${row.map(
              (n, p) =>
                html`<td data-true=${t} data-pred=${p} style=${styleMap({ background: shade(n, support, t === p) })}>${n}</td>`,
            )}</tr>`
          })}
        </table></div>
        <table class="per-class">
          <tr><th>class</th><th>precision</th><th>recall</th><th>F1</th><th>support</th></tr>
          ${c.scores.map(
            (
              s,
              k,
            ) => html`<tr data-class=${k}><th>${c.names[k]}</th><td>${fmt(s.precision)}</td><td>${fmt(s.recall)}</td>
              <td>${fmt(s.f1)}</td><td>${s.support}</td></tr>`,
          )}
        </table>
      </div>`
  }
}

function computedOf(v: ValidationScores): Computed {
  const k = classCount(v)
  const predicted = predictedClasses(v.scores, k)
  const matrix = confusionMatrix(v.labels, predicted, k)
  const names = Array.from({ length: k }, (_, c) => String(v.labelValues?.[c] ?? c))
  return {
    names,
    matrix,
    scores: classScores(matrix),
    correct: matrix.reduce((a, row, t) => a + row[t], 0),
    rows: v.labels.length,
  }
}

/** A cell's background: its share of the true class, green on the diagonal, red off it. */
function shade(n: number, support: number, diagonal: boolean): string {
  const a = support > 0 ? (n / support) * 0.6 : 0
  return diagonal ? `rgba(43, 138, 62, ${a.toFixed(3)})` : `rgba(201, 42, 42, ${a.toFixed(3)})`
}

declare global {
  interface HTMLElementTagNameMap {
    'st-multiclass-results': StMulticlassResults
  }
}
