/**
 * Delta Sharing in the side bar: a profile file picker, then the shares the profile may read with
 * their schemas and tables. Choosing a file fires `profile-open` with its text; clicking a table
 * fires `table-select`, the event the table list fires, so the table opens like any other.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import type {
  ErrorView,
  LoadState,
  ProfileOpenDetail,
  ProfileView,
  SharedShareView,
  SharedTableView,
  TableSelectDetail,
} from './types.ts'
import './error-view.ts'
import { pickedText } from './file-pick.ts'

/**
 * `<st-share-browser .profile=${p} .shares=${tree} .state=${s} .selected=${url}>`; fires
 * `profile-open` (ProfileOpenDetail) when the user picks a profile file and `table-select`
 * (TableSelectDetail, name `share.schema.table`) when they click a table; never on property sets.
 */
@customElement('st-share-browser')
export class StShareBrowser extends LitElement {
  static styles = [
    baseStyles,
    css`
    ul { list-style: none; margin: 0; padding: 0 0 0 12px; display: grid; gap: 2px; }
    ul.shares { padding: 0; gap: 6px; }
    .share, .schema { font-weight: 600; }
    .schema { font-weight: 500; }
    li button { width: 100%; text-align: left; }
    label.pick { display: grid; gap: 4px; font-size: 13px; }
    .note, .via { font-size: 12px; margin: 6px 0; }
  `,
  ]

  /** The open profile; undefined before one was opened. */
  @property({ attribute: false }) profile?: ProfileView
  @property({ attribute: false }) shares: SharedShareView[] = []
  @property() state: LoadState = 'idle'
  @property({ attribute: false }) error?: ErrorView
  /** URL of the open table, highlighted. */
  @property() selected?: string

  render() {
    return html`<h2>Shares</h2>
      <label class="pick">Open a Delta Sharing profile
        <input type="file" accept=".share,.json,application/json" @change=${this.onPick}></label>
      <p class="muted note">The profile stays in this page's memory for this session; it is never stored.</p>
      ${this.body()}`
  }

  private body() {
    if (this.state === 'loading') return html`<p class="muted" role="status">Opening the profile…</p>`
    if (this.state === 'error') return html`<st-error-view .error=${this.error}></st-error-view>`
    const p = this.profile
    if (!p) return nothing
    const via =
      p.mode === 'proxy'
        ? "through this page's server, which holds the token"
        : 'directly (the server allows this page)'
    return html`<p class="muted via" data-mode=${p.mode}><code>${p.endpoint}</code> · ${via}</p>
      ${
        this.shares.length
          ? html`<ul class="shares">${this.shares.map(s => this.share(s))}</ul>`
          : html`<p class="muted empty">This profile may read no shares.</p>`
      }`
  }

  private share(s: SharedShareView) {
    return html`<li><span class="share">${s.name}</span><ul>${s.schemas.map(
      d =>
        html`<li><span class="schema">${d.name}</span><ul>${d.tables.map(t => this.table(t))}</ul>${
          d.tables.length ? nothing : html`<span class="muted">no tables</span>`
        }</li>`,
    )}</ul></li>`
  }

  private table(t: SharedTableView) {
    return html`<li><button data-share-table=${`${t.share}.${t.schema}.${t.name}`}
      aria-pressed=${t.url === this.selected ? 'true' : 'false'} @click=${() => this.select(t)}>${t.name}</button></li>`
  }

  private async onPick(e: Event) {
    const picked = await pickedText(e) // choosing the same file again opens it again
    if (!picked) return
    const detail: ProfileOpenDetail = picked
    this.dispatchEvent(new CustomEvent('profile-open', { detail, bubbles: true, composed: true }))
  }

  private select(t: SharedTableView) {
    const detail: TableSelectDetail = { name: `${t.share}.${t.schema}.${t.name}`, url: t.url }
    this.dispatchEvent(new CustomEvent('table-select', { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-share-browser': StShareBrowser
  }
  interface HTMLElementEventMap {
    'profile-open': CustomEvent<ProfileOpenDetail>
  }
}
