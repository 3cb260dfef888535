/**
 * A table's commit history (version, time, operation, rows added / removed) and the version picker: choosing a version
 * in the select or clicking a history row asks the owner to open that version.
 */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import { formatTimestamp } from './format.ts'
import { rowsChanged } from './column-stats.ts'
import type { CommitInfo, VersionSelectDetail } from './types.ts'

/**
 * `<st-table-history .commits=${c} .selectedVersion=${v}>`; fires `version-select`
 * (VersionSelectDetail) on user choice only.
 */
@customElement('st-table-history')
export class StTableHistory extends LitElement {
  static styles = [
    baseStyles,
    css`
    label { display: inline-flex; gap: 8px; align-items: center; margin-bottom: 8px; }
    select { font: inherit; padding: 2px 6px; }
    .scroll { max-height: 220px; overflow: auto; border: 1px solid var(--st-border, #e2e6ee); border-radius: 6px; }
    tbody tr { cursor: pointer; }
    tbody tr:hover { background: var(--st-head, #f6f7fa); }
    th:first-child, td:first-child { width: 5em; }
    tr.selected { background: var(--st-accent-bg, #e8f0fd); }
  `,
  ]

  /** Commits in any order; shown newest first. */
  @property({ attribute: false }) commits: CommitInfo[] = []
  @property({ type: Number }) selectedVersion?: number

  render() {
    const commits = [...this.commits].sort((a, b) => b.version - a.version)
    return html`<label>Version
        <select aria-label="version" @change=${this.onChange}>
          ${commits.map(
            c => html`<option value=${c.version} ?selected=${c.version === this.selectedVersion}>
            v${c.version}${c === commits[0] ? ' (latest)' : ''}</option>`,
          )}
        </select></label>
      <div class="scroll"><table class="history">
        <thead><tr><th>version</th><th>timestamp</th><th>operation</th><th>rows added</th><th>rows removed</th></tr></thead>
        <tbody>${commits.map(
          c => html`<tr data-version=${c.version}
            class=${c.version === this.selectedVersion ? 'selected' : ''} @click=${() => this.select(c.version)}>
          <td class="num">${c.version}</td><td class="mono">${formatTimestamp(c.timestamp)}</td>
          <td>${c.operation ?? ''}</td>${this.changed(c)}</tr>`,
        )}</tbody>
      </table></div>`
  }

  private changed(c: CommitInfo) {
    const { added, removed } = rowsChanged(c)
    return html`<td class="num added">${added === undefined ? '' : `+${added}`}</td><td class="num removed">${removed === undefined ? '' : `−${removed}`}</td>`
  }

  private onChange(e: Event) {
    this.select(Number((e.target as HTMLSelectElement).value))
  }

  private select(version: number) {
    const detail: VersionSelectDetail = { version }
    this.dispatchEvent(new CustomEvent('version-select', { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-table-history': StTableHistory
  }
  interface HTMLElementEventMap {
    'version-select': CustomEvent<VersionSelectDetail>
  }
}
