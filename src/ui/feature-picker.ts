/**
 * `<st-feature-picker .columns=${candidates} .chosen=${features}>`: which columns a run trains on —
 * a checkbox per candidate column (`input[data-feature=<name>]`) with "all" and "none" — the one
 * picker of the single-run form (st-train-panel) and the sweep form (st-sweep-setup). The owner
 * leaves out what cannot be a feature (the label, a weight or query id column). Presentational:
 * fires `features-change` (the chosen columns: toggling one on appends it; "all" = `columns` in
 * order) and the owner sets `chosen` again. Reflects `data-chosen` (how many are chosen) for tests.
 */
import { LitElement, html, css } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import { baseStyles } from './styles.ts'

@customElement('st-feature-picker')
export class StFeaturePicker extends LitElement {
  static styles = [
    baseStyles,
    css`
    .features { display: flex; flex-wrap: wrap; gap: 2px 12px; max-height: 120px; overflow: auto; }
  `,
  ]

  /** The columns that may be features, in the table's order. */
  @property({ attribute: false }) columns: string[] = []
  /** The chosen ones. */
  @property({ attribute: false }) chosen: string[] = []

  render() {
    this.dataset.chosen = String(this.columns.filter(c => this.chosen.includes(c)).length)
    return html`<div class="features" role="group" aria-label="features">${this.columns.map(
      c => html`<label><input type="checkbox" data-feature=${c}
        .checked=${this.chosen.includes(c)} @change=${(e: Event) => this.toggle(c, (e.target as HTMLInputElement).checked)}> ${c}</label>`,
    )}</div>
      <button type="button" class="all" @click=${() => this.fire(this.columns.slice())}>all</button>
      <button type="button" class="none" @click=${() => this.fire([])}>none</button>`
  }

  private toggle(c: string, on: boolean) {
    const rest = this.chosen.filter(x => x !== c)
    this.fire(on ? [...rest, c] : rest)
  }

  private fire(features: string[]) {
    this.dispatchEvent(new CustomEvent('features-change', { detail: features }))
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-feature-picker': StFeaturePicker
  }
  interface HTMLElementEventMap {
    'features-change': CustomEvent<string[]>
  }
}
