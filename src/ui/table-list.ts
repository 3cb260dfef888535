/**
 * The tables the server lists, with their latest version; clicking one asks to open it. A URL
 * field opens any other table root (same `table-select` event).
 */
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
  static styles = [
    baseStyles,
    css`
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 4px; }
    li button { width: 100%; display: flex; justify-content: space-between; gap: 12px; text-align: left; }
    .name { font-weight: 600; }
    form.url { display: flex; gap: 6px; margin-top: 8px; }
    form.url input { flex: 1; min-width: 0; font: inherit; }
  `,
  ]

  @property({ attribute: false }) tables: TableView[] = []
  /** Name of the open table, highlighted. */
  @property() selected?: string
  @property() state: LoadState = 'idle'
  @property({ attribute: false }) error?: ErrorView

  render() {
    return html`<h2>Tables</h2>${this.body()}
      <form class="url" @submit=${this.openUrl}>
        <input name="url" aria-label="table URL" placeholder="or a table URL: https://…/table/">
        <button type="submit">Open</button></form>`
  }

  private openUrl(e: Event) {
    e.preventDefault()
    const input = (e.target as HTMLFormElement).querySelector('input')!
    const raw = input.value.trim()
    if (!raw) return
    const url = raw.endsWith('/') ? raw : `${raw}/`
    const name = url.replace(/\/+$/, '').split('/').pop() || url
    const detail: TableSelectDetail = { name, url }
    this.dispatchEvent(new CustomEvent('table-select', { detail, bubbles: true, composed: true }))
  }

  private body() {
    if (this.state === 'error') return html`<st-error-view .error=${this.error}></st-error-view>`
    if (this.state !== 'ready') return html`<p class="muted">Listing tables…</p>`
    if (this.tables.length === 0) {
      return html`<p class="muted">No tables found under <code>/tables/</code>. Run <code>npm run data</code>.</p>`
    }
    return html`<ul>${this.tables.map(
      t => html`<li>
      <button data-table=${t.name} aria-pressed=${t.name === this.selected ? 'true' : 'false'}
        @click=${() => this.select(t)}>
        <span class="name">${t.name}</span>
        <span class="muted version">${t.latestVersion === undefined ? '' : `v${t.latestVersion}`}</span>
      </button></li>`,
    )}</ul>`
  }

  private select(t: TableView) {
    const detail: TableSelectDetail = { name: t.name, url: t.url }
    this.dispatchEvent(new CustomEvent('table-select', { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-table-list': StTableList
  }
  interface HTMLElementEventMap {
    'table-select': CustomEvent<TableSelectDetail>
  }
}
