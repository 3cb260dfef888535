/**
 * The open table: name and URL, progress of the current step, errors, the version picker with
 * history, the snapshot facts, its schema and its first rows. Presentational: st-app owns data.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import type { CommitInfo, ErrorView, LoadState, Row, SnapshotView, StructField } from './types.ts'
import './error-view.ts'
import './table-history.ts'
import './snapshot-summary.ts'
import './schema-view.ts'
import './rows-preview.ts'

/** A snapshot as this view needs it. */
export type TableSnapshotView = SnapshotView & { schema: { fields: StructField[] }; partitionColumns: string[] }

/** `<st-table-view …>`; its children fire `version-select`, which bubbles to the owner. */
@customElement('st-table-view')
export class StTableView extends LitElement {
  static styles = [
    baseStyles,
    css`
    /* minmax(0, 1fr): a wide rows table scrolls inside its box instead of widening the page. */
    :host { display: grid; grid-template-columns: minmax(0, 1fr); gap: 14px; }
    .title { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; }
    .title h1 { font-size: 20px; margin: 0; }
    .status { color: var(--st-muted, #5b6473); }
    .status::before { content: '⏳ '; }
  `,
  ]

  @property() name = ''
  @property() url = ''
  @property() state: LoadState = 'idle'
  /** The step in progress while `state` is 'loading'. */
  @property() stage = ''
  @property({ attribute: false }) error?: ErrorView
  @property({ attribute: false }) commits: CommitInfo[] = []
  @property({ attribute: false }) snapshot?: TableSnapshotView
  @property({ attribute: false }) rows: Row[] = []
  @property({ type: Number }) previewRows = 20

  render() {
    const s = this.snapshot
    return html`<div class="title"><h1>${this.name}</h1><code class="muted">${this.url}</code></div>
      ${this.state === 'loading' ? html`<div class="status" role="status">${this.stage}…</div>` : nothing}
      ${this.error ? html`<st-error-view .error=${this.error}></st-error-view>` : nothing}
      ${
        this.commits.length
          ? html`<div><h2>Versions</h2><st-table-history .commits=${this.commits}
        .selectedVersion=${s?.version}></st-table-history></div>`
          : nothing
      }
      ${
        s
          ? html`<st-snapshot-summary .snapshot=${s}></st-snapshot-summary>
        <div><h2>Schema (${s.schema.fields.length} columns)</h2>
          <st-schema-view .fields=${s.schema.fields} .partitionColumns=${s.partitionColumns}
            .files=${s.files}></st-schema-view></div>
        ${this.rowsBlock(s)}`
          : nothing
      }`
  }

  private rowsBlock(s: TableSnapshotView) {
    if (this.state === 'loading' && this.rows.length === 0) return nothing
    if (this.state === 'error' && this.rows.length === 0) return nothing
    return html`<div><h2>First ${this.previewRows} rows at version ${s.version}</h2>
      <st-rows-preview .columns=${s.schema.fields.map(f => f.name)} .rows=${this.rows}></st-rows-preview></div>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-table-view': StTableView
  }
}
