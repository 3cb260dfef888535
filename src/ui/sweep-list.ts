/**
 * `<st-sweep-list .sweeps=${s} .selected=${id} .active=${ids}>`: the sweeps stored in this
 * browser (newest first) with table, strategy, status, trials and best metric. Fires
 * `sweep-open`, `sweep-resume` and `sweep-delete` (SweepIdDetail) and `sweep-import`
 * ({json}) on user action only.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { formatNumber } from './format.ts'
import { baseStyles } from './styles.ts'
import type { ErrorView, LoadState, SweepIdDetail, SweepState } from './types.ts'
import './error-view.ts'

/** Short name of a table URL: its last path segment, or `share.schema.table` for a shared table's URL. */
export function tableName(url: string): string {
  const shared = /\/shares\/([^/]+)\/schemas\/([^/]+)\/tables\/([^/]+)\/?$/.exec(url)
  if (shared) return shared.slice(1).map(decodeSegment).join('.')
  return url.replace(/\/+$/, '').split('/').pop() || url
}

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

@customElement('st-sweep-list')
export class StSweepList extends LitElement {
  static styles = [
    baseStyles,
    css`
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 4px; }
    li { display: flex; gap: 4px; }
    li > button.open { flex: 1; text-align: left; display: grid; }
    .line { display: flex; justify-content: space-between; gap: 8px; }
    .status-running { color: var(--st-accent, #2f6fde); } .status-failed { color: var(--st-error, #c62828); }
    label.import { font-size: 12px; }
  `,
  ]

  @property({ attribute: false }) sweeps: SweepState[] = []
  @property() selected?: string
  /** Ids of sweeps running in this page now (no Resume for them). */
  @property({ attribute: false }) active: string[] = []
  @property() state: LoadState = 'idle'
  @property({ attribute: false }) error?: ErrorView

  render() {
    return html`<h2>Sweeps</h2>${this.body()}
      <label class="import muted">Import sweep JSON <input type="file" accept=".json,application/json" @change=${this.onImport}></label>`
  }

  private body() {
    if (this.state === 'error') return html`<st-error-view .error=${this.error}></st-error-view>`
    if (this.state === 'loading' && this.sweeps.length === 0) return html`<p class="muted">Reading stored sweeps…</p>`
    if (this.sweeps.length === 0) return html`<p class="muted empty">No sweeps yet. Open a table and start one.</p>`
    const sorted = [...this.sweeps].sort((a, b) => b.createdAt.localeCompare(a.createdAt))
    return html`<ul>${sorted.map(s => this.item(s))}</ul>`
  }

  private item(s: SweepState) {
    const resumable = s.status !== 'finished' && !this.active.includes(s.id)
    return html`<li data-sweep=${s.id}>
      <button class="open" aria-pressed=${s.id === this.selected ? 'true' : 'false'} @click=${() => this.fire('sweep-open', s.id)}>
        <span class="line"><b>${s.config.name || tableName(s.config.table)}</b><span class="status-${s.status} status">${s.status}</span></span>
        <span class="line muted"><span>${s.config.model} · ${s.config.strategy} · ${s.trials.length} trials</span>
          <span>${s.best ? `${s.config.metric ?? 'auc'} ${formatNumber(s.best.metric)}` : ''}</span></span>
      </button>
      ${resumable ? html`<button class="resume" title="Resume" @click=${() => this.fire('sweep-resume', s.id)}>▶</button>` : nothing}
      <button class="delete" title="Delete" ?disabled=${this.active.includes(s.id)} @click=${() => this.fire('sweep-delete', s.id)}>✕</button>
    </li>`
  }

  private fire(type: 'sweep-open' | 'sweep-resume' | 'sweep-delete', id: string) {
    const detail: SweepIdDetail = { id }
    this.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }))
  }

  private async onImport(e: Event) {
    const input = e.target as HTMLInputElement
    const file = input.files?.[0]
    if (!file) return
    const json = await file.text()
    input.value = ''
    this.dispatchEvent(
      new CustomEvent('sweep-import', { detail: { json, name: file.name }, bubbles: true, composed: true }),
    )
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-sweep-list': StSweepList
  }
  interface HTMLElementEventMap {
    'sweep-open': CustomEvent<SweepIdDetail>
    'sweep-resume': CustomEvent<SweepIdDetail>
    'sweep-delete': CustomEvent<SweepIdDetail>
    'sweep-import': CustomEvent<{ json: string; name: string }>
  }
}
