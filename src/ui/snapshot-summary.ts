/** One line of facts about the open snapshot: version, commit time, files, bytes, protocol. */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import { formatBytes, formatTimestamp } from './format.ts'
import type { SnapshotView } from './types.ts'
import { rowsFromLog } from '../models/memory-budget.ts'

/** `<st-snapshot-summary .snapshot=${s}>`; no events. */
@customElement('st-snapshot-summary')
export class StSnapshotSummary extends LitElement {
  static styles = [
    baseStyles,
    css`
    dl { display: flex; flex-wrap: wrap; gap: 4px 20px; margin: 0; }
    div { display: flex; gap: 6px; }
    dt { color: var(--st-muted, #5b6473); }
    dd { margin: 0; }
  `,
  ]

  @property({ attribute: false }) snapshot?: SnapshotView

  render() {
    const s = this.snapshot
    if (!s) return html``
    const bytes = s.files.reduce((n, f) => n + f.size, 0)
    // Live rows: numRecords less each deletion vector's cardinality; undefined when a file has no stats.
    const rows = rowsFromLog(s)
    return html`<dl>
      <div><dt>version</dt><dd class="version">${s.version}</dd></div>
      <div><dt>committed</dt><dd class="mono">${formatTimestamp(s.timestamp)}</dd></div>
      <div><dt>files</dt><dd class="files">${s.files.length}</dd></div>
      <div><dt>size</dt><dd>${formatBytes(bytes)}</dd></div>
      ${rows === undefined ? '' : html`<div><dt>live rows (from stats)</dt><dd>${rows}</dd></div>`}
      <div><dt>reader protocol</dt><dd>${s.protocol.minReaderVersion}</dd></div>
      ${s.columnMapping === 'none' ? '' : html`<div><dt>column mapping</dt><dd>${s.columnMapping}</dd></div>`}
    </dl>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-snapshot-summary': StSnapshotSummary
  }
}
