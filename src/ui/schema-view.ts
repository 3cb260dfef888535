/**
 * A snapshot's schema: one row per top-level field with type, nullability, partition marker and,
 * when the files carry stats, the column's min / max / null count over the snapshot.
 */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import { formatType, formatValue } from './format.ts'
import { columnStats } from './column-stats.ts'
import type { AddFile } from '../table/types.ts'
import type { StructField } from './types.ts'

/** `<st-schema-view .fields=${schema.fields} .partitionColumns=${cols}>`; no events. */
@customElement('st-schema-view')
export class StSchemaView extends LitElement {
  static styles = [
    baseStyles,
    css`
    .badge {
      font-size: 11px;
      border-radius: 4px;
      padding: 0 5px;
      background: var(--st-accent-bg, #e8f0fd);
      color: var(--st-accent, #2f6fde);
    }
  `,
  ]

  /** Top-level fields of the logical schema, in schema order. */
  @property({ attribute: false }) fields: StructField[] = []
  /** Logical names of partition columns. */
  @property({ attribute: false }) partitionColumns: string[] = []
  /** The snapshot's live files (their stats give min / max / nulls); none → no stats columns. */
  @property({ attribute: false }) files: AddFile[] = []

  render() {
    const parts = new Set(this.partitionColumns)
    const withStats = this.files.some(f => f.stats?.minValues || f.stats?.nullCount)
    const stat = (v: unknown) => (v === undefined ? '' : formatValue(v))
    return html`<table class="schema">
      <thead><tr><th>column</th><th>type</th><th>nullable</th><th>partition</th>${withStats ? html`<th>min</th><th>max</th><th>nulls</th>` : ''}</tr></thead>
      <tbody>${this.fields.map(
        f => html`<tr data-field=${f.name}>
        <td class="mono name">${f.name}</td>
        <td class="mono type">${formatType(f.type)}</td>
        <td>${f.nullable ? 'yes' : 'no'}</td>
        <td>${parts.has(f.name) ? html`<span class="badge partition">partition</span>` : ''}</td>
        ${withStats ? this.statCells(f.name, stat) : ''}
      </tr>`,
      )}</tbody>
    </table>`
  }

  private statCells(name: string, stat: (v: unknown) => string) {
    const s = columnStats(this.files, name)
    return html`<td class="mono num min">${stat(s.min)}</td><td class="mono num max">${stat(s.max)}</td><td class="num nulls">${stat(s.nulls)}</td>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-schema-view': StSchemaView
  }
}
