/** Shows one error with its context, reader code, URL and cause chain; renders nothing when unset. */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'
import type { ErrorView } from './types.ts'

/** `<st-error-view .error=${view}>`: an alert box; the owner decides when to set or clear it. */
@customElement('st-error-view')
export class StErrorView extends LitElement {
  static styles = [
    baseStyles,
    css`
    .box {
      border: 1px solid var(--st-error, #c62828);
      border-left-width: 4px;
      background: var(--st-error-bg, #fdf1f1);
      border-radius: 6px;
      padding: 8px 12px;
      overflow-wrap: anywhere;
    }
    .context { font-weight: 600; color: var(--st-error, #c62828); }
    ul { margin: 4px 0 0; padding-left: 18px; }
  `,
  ]

  /** The error to show; undefined renders nothing. */
  @property({ attribute: false }) error?: ErrorView

  render() {
    const e = this.error
    if (!e) return nothing
    return html`<div class="box" role="alert">
      <div class="context">${e.context} failed</div>
      <div class="message">${e.message}</div>
      ${e.code ? html`<div class="muted">code: <code>${e.code}</code></div>` : nothing}
      ${e.url ? html`<div class="muted">url: <code>${e.url}</code></div>` : nothing}
      ${
        e.causes.length
          ? html`<div class="muted">caused by:</div>
        <ul class="causes">${e.causes.map(c => html`<li>${c}</li>`)}</ul>`
          : nothing
      }
    </div>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-error-view': StErrorView
  }
}
