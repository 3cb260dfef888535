/**
 * `<st-partial-dependence .curves>`: one small chart per monotone-constrained feature of a GBDT
 * run — the mean prediction over the explained validation rows with the feature set to each grid
 * value (Explanation.partialDependence) — titled with the constraint's direction and whether the
 * curve keeps it. Presentational. Each chart carries `data-feature` and `data-monotone` ('yes' when
 * the curve never moves against its constraint).
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property } from 'lit/decorators.js'
import type { Explanation } from '../api-types.ts'
import { baseStyles } from './styles.ts'
import './line-chart.ts'

/** One feature's curve (models/gbdt/partial-dependence.ts). */
export type PartialDependence = NonNullable<Explanation['partialDependence']>[number]

/** True when `ys` never moves against `direction` (1: non-decreasing, −1: non-increasing). */
export function keepsDirection(ys: readonly number[], direction: number): boolean {
  for (let i = 1; i < ys.length; i++) if ((ys[i] - ys[i - 1]) * direction < 0) return false
  return true
}

@customElement('st-partial-dependence')
export class StPartialDependence extends LitElement {
  static styles = [
    baseStyles,
    css`
    .charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(220px, 1fr)); gap: 12px; }
  `,
  ]

  @property({ attribute: false }) curves: PartialDependence[] = []

  render() {
    if (this.curves.length === 0) return nothing
    return html`<h2>Partial dependence of the monotone features</h2>
      <p class="muted">Mean prediction over the explained validation rows with the feature set to each value.</p>
      <div class="charts">${this.curves.map(c => {
        const keeps = keepsDirection(c.mean, c.constraint)
        const heading = `${c.feature} (${c.constraint > 0 ? 'increasing' : 'decreasing'}${keeps ? '' : ': NOT kept'})`
        return html`<st-line-chart data-feature=${c.feature} data-monotone=${keeps ? 'yes' : 'no'} heading=${heading}
          x-label=${c.feature} y-label="mean prediction"
          .lines=${[{ name: c.feature, colour: keeps ? '#2f6fde' : '#c92a2a', xs: c.grid, ys: c.mean }]}></st-line-chart>`
      })}</div>`
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-partial-dependence': StPartialDependence
  }
}
