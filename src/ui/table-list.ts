/** The tables the server lists, with their latest version; clicking one asks to open it. */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import type { ErrorView, LoadState, TableSelectDetail, TableView } from './types.ts'
import './error-view.ts'

/**
 * `<st-table-list .tables=${t} .selected=${name}>`; fires `table-select` (TableSelectDetail)
 * when the user clicks a table, never when `selected` is set by the owner.
 */
@customElement('st-table-list')
export class StTableList extends LitElement {
  static styles = [baseStyles, css`
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 4px; }
    button { width: 100%; display: flex; justify-content: space-between; gap: 12px; text-align: left; }
    .name { font-weight: 600; }
  `]

  @property({ attribute: false }) tables: TableView[] = []
  /** Name of the open table, highlighted. */
  @property() selected?: string
  @property() state: LoadState = 'idle'
  @property({ attribute: false }) error?: ErrorView

  render() {
    return html`<h2>Tables</h2>${this.body()}`
  }

  private body() {
    if (this.state === 'error') return html`<st-error-view .error=${this.error}></st-error-view>`
    if (this.state !== 'ready') return html`<p class="muted">Listing tables…</p>`
    if (this.tables.length === 0) {
      return html`<p class="muted">No tables found under <code>/tables/</code>. Run <code>npm run data</code>.</p>`
    }
    return html`<ul>${this.tables.map(t => html`<li>
      <button data-table=${t.name} aria-pressed=${t.name === this.selected ? 'true' : 'false'}
        @click=${() => this.select(t)}>
        <span class="name">${t.name}</span>
        <span class="muted version">${t.latestVersion === undefined ? '' : `v${t.latestVersion}`}</span>
      </button></li>`)}</ul>`
  }

  private select(t: TableView) {
    const detail: TableSelectDetail = { name: t.name, url: t.url }
    this.dispatchEvent(new CustomEvent('table-select', { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap { 'st-table-list': StTableList }
  interface HTMLElementEventMap { 'table-select': CustomEvent<TableSelectDetail> }
}
