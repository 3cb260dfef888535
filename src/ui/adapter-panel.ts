/**
 * The WebGPU adapter the page runs on: identity, fallback flag, the limits that bound our buffers
 * and workgroups, and features. Without an adapter it says what the browser needs instead.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import { formatBytes } from './format.ts'
import type { AdapterView, ErrorView, LoadState } from './types.ts'
import './error-view.ts'

/** Limits whose values are byte counts (shown with a unit next to the raw number). */
const BYTE_LIMITS = new Set(['maxBufferSize', 'maxStorageBufferBindingSize', 'maxComputeWorkgroupStorageSize'])
/** The limits that bound our buffers and kernels, shown first; the rest sit behind a disclosure. */
const KEY_LIMITS = [
  ...BYTE_LIMITS,
  'maxComputeInvocationsPerWorkgroup',
  'maxComputeWorkgroupSizeX',
  'maxComputeWorkgroupsPerDimension',
  'maxStorageBuffersPerShaderStage',
]

/** `<st-adapter-panel .adapter=${a} .state=${s} .error=${e}>`; no events. */
@customElement('st-adapter-panel')
export class StAdapterPanel extends LitElement {
  static styles = [
    baseStyles,
    css`
    dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 8px; }
    dt { color: var(--st-muted, #5b6473); }
    dd { margin: 0; overflow-wrap: anywhere; }
    .features { display: flex; flex-wrap: wrap; gap: 4px; }
    table { table-layout: fixed; }
    td:first-child { overflow-wrap: anywhere; }
    /* Fixed layout takes widths from the header row. */
    th:last-child { width: 5em; }
    td code { font-size: 11px; }
    code { overflow-wrap: anywhere; }
    .features code { background: var(--st-head, #f6f7fa); border-radius: 4px; padding: 0 4px; }
    .fallback { color: var(--st-warn, #a15c00); }
    .unavailable p { margin: 4px 0 8px; }
    .unavailable code { white-space: nowrap; }
    details { margin: 6px 0; }
    summary { cursor: pointer; }
  `,
  ]

  @property({ attribute: false }) adapter?: AdapterView
  @property() state: LoadState = 'idle'
  /** Why no adapter could be had (no navigator.gpu, no adapter, a timeout…). */
  @property({ attribute: false }) error?: ErrorView

  render() {
    return html`<h2>WebGPU adapter</h2>${this.body()}`
  }

  private body() {
    if (this.state === 'loading' || this.state === 'idle') return html`<p class="muted">Requesting adapter…</p>`
    if (this.state === 'error' || !this.adapter) return this.unavailable()
    const a = this.adapter
    return html`<dl class="identity">
        <dt>vendor</dt><dd class="vendor">${a.vendor || '(not reported)'}</dd>
        <dt>architecture</dt><dd>${a.architecture || '(not reported)'}</dd>
        <dt>device</dt><dd>${a.device || '(not reported)'}</dd>
        <dt>description</dt><dd>${a.description || '(not reported)'}</dd>
        <dt>fallback adapter</dt>
        <dd class=${a.isFallbackAdapter ? 'fallback' : ''}>${a.isFallbackAdapter ? 'yes (software, slow)' : 'no'}</dd>
      </dl>
      ${limitsTable(
        'limits key',
        KEY_LIMITS.filter(k => k in a.limits).map(k => [k, a.limits[k]!]),
      )}
      <details><summary class="muted">all ${Object.keys(a.limits).length} limits</summary>
        ${limitsTable(
          'limits all',
          Object.entries(a.limits).sort(([x], [y]) => x.localeCompare(y)),
        )}</details>
      <h2 style="margin-top:10px">features (${a.features.length})</h2>
      <div class="features">${a.features.map(f => html`<code>${f}</code>`)}</div>`
  }

  private unavailable() {
    return html`<div class="unavailable">
      <p><strong>WebGPU is not available in this browser</strong>, so training cannot run here.
        Tables can still be browsed.</p>
      <p class="muted">snaptrain needs WebGPU: Chrome or Edge 113+ (desktop), Safari 26+, or Firefox 141+ on
        Windows. On Linux, start Chrome with <code>--enable-unsafe-webgpu</code> <code>--enable-features=Vulkan</code>
        (headless or without a GPU add <code>--use-angle=swiftshader</code> <code>--enable-unsafe-swiftshader</code>),
        and check <code>chrome://gpu</code>.</p>
      ${this.error ? html`<st-error-view .error=${this.error}></st-error-view>` : nothing}
    </div>`
  }
}

function limitsTable(cls: string, rows: [string, number][]) {
  return html`<table class=${cls}><thead><tr><th>limit</th><th>value</th></tr></thead><tbody>
    ${rows.map(
      ([k, v]) => html`<tr data-limit=${k}><td><code>${k}</code></td>
      <td class="num" title=${v}>${BYTE_LIMITS.has(k) ? formatBytes(v) : v}</td></tr>`,
    )}
  </tbody></table>`
}

declare global {
  interface HTMLElementTagNameMap {
    'st-adapter-panel': StAdapterPanel
  }
}
