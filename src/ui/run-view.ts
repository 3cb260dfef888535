/**
 * `<st-run-view .run .data>`: a finished run as it showed when it finished, from its kept record —
 * name (editable), tags, table@version, score line, downloads named after the run, its results
 * (ROC / PR / threshold / confusion, or the task's view), learning curve, importance and SHAP,
 * parameters and manifest. Presentational: fires `run-rename` ({id, name}), `run-retag` ({id,
 * tags}), `run-download` (RunDownloadDetail) and `run-delete` ({id}) on user action only. With
 * `live` (the run this page just trained, whose live block shows results, curve and explanation) it
 * shows the record's parts only.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { Explanation, StoredRun, StoredRunData } from '../api-types.ts'
import { familyOf } from '../models/registry.ts'
import { type RunFileKind, parseTags, runFileName, runLine, runName } from './run-list.ts'
import { baseStyles } from './styles.ts'
import type { ErrorView, LoadState } from './types.ts'
import './run-results.ts'
import './train-curve.ts'
import './run-explanation.ts'

@customElement('st-run-view')
export class StRunView extends LitElement {
  static styles = [
    baseStyles,
    css`
    :host { display: grid; gap: 12px; }
    .head { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
    input.name { font-size: 18px; font-weight: 600; min-width: 240px; }
    .downloads { display: flex; gap: 4px; flex-wrap: wrap; align-items: center; }
    .stopped { color: var(--st-warn, #b35c00); }
    table.params td { padding: 2px 8px; }
    pre.manifest { max-height: 420px; overflow: auto; font-size: 12px; }
  `,
  ]

  @property({ attribute: false }) run?: StoredRun
  @property({ attribute: false }) data?: StoredRunData
  /** The explanation's state when the page computes it now; default: ready when the data has one. */
  @property() explainState?: LoadState
  @property({ attribute: false }) explainError?: ErrorView
  @property({ attribute: false }) explanation?: Explanation
  @property({ type: Number, attribute: 'max-rows' }) maxRows = 2000
  /** The page trained this run just now and shows its live results, curve and explanation itself: the record's parts only. */
  @property({ type: Boolean }) live = false

  render() {
    const r = this.run
    if (!r) return nothing
    const file = (kind: RunFileKind, cli: string) =>
      html`<button data-file=${kind} @click=${() => this.fire('run-download', { id: r.id, file: kind })}>${runFileName(r, cli)}</button>`
    return html`<div class="head">
        <input class="name" aria-label="Run name" .value=${runName(r)} @change=${(e: Event) => {
          const name = (e.target as HTMLInputElement).value.trim()
          if (name && name !== runName(r)) this.fire('run-rename', { id: r.id, name })
        }}>
        <span class=${r.stopped ? 'line stopped' : 'line'}>${runLine(r)}</span>
        <button class="delete" @click=${() => this.fire('run-delete', { id: r.id })}>Delete</button>
      </div>
      <div class="muted">${r.table.name}${r.table.version === undefined ? '' : `@v${r.table.version}`} · label ${r.label}
        · ${new Date(r.createdAt).toLocaleString()} · <span class="mono">${r.id}</span></div>
      <label>Tags <input class="tags" placeholder="comma-separated" .value=${(r.tags ?? []).join(', ')}
        @change=${(e: Event) => this.fire('run-retag', { id: r.id, tags: parseTags((e.target as HTMLInputElement).value) })}></label>
      <div class="downloads">Download ${file('model', r.modelFile)} ${file('manifest', 'manifest.json')}
        ${file('metrics', 'metrics.csv')} ${file('continue', 'continue.zip')}</div>
      ${this.live ? nothing : this.results(r)}
      <details class="params" ?open=${!this.live}><summary>Parameters</summary><table class="params">
        ${Object.entries(r.params).map(([k, v]) => html`<tr data-param=${k}><td>${k}</td><td class="mono">${JSON.stringify(v)}</td></tr>`)}
      </table></details>
      <details class="manifest"><summary>manifest.json</summary><pre class="manifest">${JSON.stringify(r.manifest, null, 2)}</pre></details>`
  }

  /** The kept run's results view, learning curve and explanation. */
  private results(r: StoredRun) {
    const family = familyOf(r.model)
    const explanation = this.explanation ?? this.data?.explanation
    const explainState = this.explainState ?? (explanation ? 'ready' : 'idle')
    return html`${
      this.data?.validation
        ? html`<st-run-results .task=${family.task(r.params)} .validation=${this.data.validation}
          .metrics=${r.summary.eval ?? {}}></st-run-results>`
        : nothing
    }
      ${r.metrics.length ? html`<st-train-curve .history=${r.metrics} x-label=${family.evaluation}></st-train-curve>` : nothing}
      ${
        explainState === 'idle'
          ? nothing
          : html`<st-run-explanation .state=${explainState} .error=${this.explainError} .explanation=${explanation}
            max-rows=${this.maxRows}></st-run-explanation>`
      }`
  }

  private fire(name: string, detail: object) {
    this.dispatchEvent(new CustomEvent(name, { detail, bubbles: true, composed: true }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-run-view': StRunView
  }
  interface HTMLElementEventMap {
    'run-rename': CustomEvent<{ id: string; name: string }>
    'run-retag': CustomEvent<{ id: string; tags: string[] }>
  }
}
