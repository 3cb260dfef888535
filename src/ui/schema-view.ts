/** A snapshot's schema: one row per top-level field with type, nullability and partition marker. */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import { formatType } from './format.ts'
import type { StructField } from './types.ts'

/** `<st-schema-view .fields=${schema.fields} .partitionColumns=${cols}>`; no events. */
@customElement('st-schema-view')
export class StSchemaView extends LitElement {
  static styles = [baseStyles, css`
    .badge {
      font-size: 11px;
      border-radius: 4px;
      padding: 0 5px;
      background: var(--st-accent-bg, #e8f0fd);
      color: var(--st-accent, #2f6fde);
    }
  `]

  /** Top-level fields of the logical schema, in schema order. */
  @property({ attribute: false }) fields: StructField[] = []
  /** Logical names of partition columns. */
  @property({ attribute: false }) partitionColumns: string[] = []

  render() {
    const parts = new Set(this.partitionColumns)
    return html`<table class="schema">
      <thead><tr><th>column</th><th>type</th><th>nullable</th><th>partition</th></tr></thead>
      <tbody>${this.fields.map(f => html`<tr data-field=${f.name}>
        <td class="mono name">${f.name}</td>
        <td class="mono type">${formatType(f.type)}</td>
        <td>${f.nullable ? 'yes' : 'no'}</td>
        <td>${parts.has(f.name) ? html`<span class="badge partition">partition</span>` : ''}</td>
      </tr>`)}</tbody>
    </table>`
  }
}

declare global {
  interface HTMLElementTagNameMap { 'st-schema-view': StSchemaView }
}
