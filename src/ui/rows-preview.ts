/** The first rows of a snapshot as a plain table; nulls are marked so they differ from ''. */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import { formatValue, isNumeric } from './format.ts'
import type { Row } from './types.ts'

/** `<st-rows-preview .columns=${names} .rows=${rows}>`; no events. */
@customElement('st-rows-preview')
export class StRowsPreview extends LitElement {
  static styles = [
    baseStyles,
    css`
    .scroll { max-height: 480px; overflow: auto; border: 1px solid var(--st-border, #e2e6ee); border-radius: 6px; }
    td { white-space: nowrap; }
    td.null { color: var(--st-muted, #5b6473); font-style: italic; }
    th.idx, td.idx { color: var(--st-muted, #5b6473); text-align: right; }
  `,
  ]

  /** Column names in display order (logical names, keys of each row). */
  @property({ attribute: false }) columns: string[] = []
  @property({ attribute: false }) rows: Row[] = []

  render() {
    if (this.rows.length === 0) return html`<p class="muted empty">No rows at this version.</p>`
    return html`<div class="scroll"><table class="rows">
      <thead><tr><th class="idx">#</th>${this.columns.map(c => html`<th class="mono">${c}</th>`)}</tr></thead>
      <tbody>${this.rows.map(
        (r, i) => html`<tr>
        <td class="idx">${i}</td>
        ${this.columns.map(c => this.cell(r[c]))}
      </tr>`,
      )}</tbody>
    </table></div>`
  }

  private cell(v: unknown) {
    const cls = v === null || v === undefined ? 'null' : isNumeric(v) ? 'num' : ''
    return html`<td class="mono ${cls}" title=${typeof v === 'number' ? String(v) : ''}>${formatValue(v)}</td>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-rows-preview': StRowsPreview
  }
}
