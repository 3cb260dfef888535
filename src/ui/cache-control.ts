/**
 * `<st-cache-control .api=${window.snaptrain}>`: the page's epoch cache (src/data/unit-cache.ts) in
 * the header, next to the adapter line — one line of usage ("cache: 84 MiB in memory · 120 MiB on
 * disk · 9 hits") that expands to an on/off switch, the memory budget (MiB) and a Clear cache
 * button. Changes apply at once (configureUnitCache: runs started afterwards use them) and are kept
 * in localStorage (cache-settings.ts), which the page applies when it starts. The usage is read
 * when the control connects, opens, after each change and every few seconds while it is open.
 * An API without the cache (a host's own) shows no control.
 */
import { LitElement, html, css, nothing } from 'lit'
import { customElement, property, state } from 'lit/decorators.js'
import type { UnitCacheUsage } from '../api-types.ts'
import { baseStyles } from './styles.ts'
import { formatBytes } from './format.ts'
import { keepCacheSettings, type CacheApi } from './cache-settings.ts'

/** How often an open control reads the usage again, ms. */
const REFRESH_MS = 3000

/** The memory budget field's name, as its messages say it. */
const BUDGET_FIELD = 'Memory budget (MiB)'

/** The usage line: "cache: 84 MiB in memory · 120 MiB on disk · 9 hits" ("cache: off · …" when off). */
export function usageLine(u: UnitCacheUsage | undefined, enabled: boolean): string {
  if (!u) return enabled ? 'cache: …' : 'cache: off'
  const parts = [
    `${formatBytes(u.memoryBytes)} in memory`,
    `${formatBytes(u.spillBytes)} on disk`,
    `${u.hits} hit${u.hits === 1 ? '' : 's'}`,
  ]
  return `cache: ${enabled ? '' : 'off · '}${parts.join(' · ')}`
}

/**
 * The budget field's text as bytes; throws naming the field for anything but a number of MiB ≥ 0.
 */
export function budgetBytes(text: string): number {
  const t = text.trim()
  const mib = t === '' ? NaN : Number(t)
  if (!Number.isFinite(mib) || mib < 0) throw new RangeError(`${BUDGET_FIELD}: expected a number ≥ 0, got '${text}'`)
  const bytes = Math.round(mib * 2 ** 20)
  if (!Number.isSafeInteger(bytes))
    throw new RangeError(`${BUDGET_FIELD}: ${text} MiB is more than this page can count`)
  return bytes
}

@customElement('st-cache-control')
export class StCacheControl extends LitElement {
  static styles = [
    baseStyles,
    css`
    :host { display: inline-block; }
    summary { cursor: pointer; color: var(--st-muted, #5b6473); }
    .body { display: grid; gap: 6px; padding: 8px 0 4px; max-width: 360px; }
    label { display: flex; gap: 6px; align-items: baseline; }
    input[name=memory] { width: 7em; }
    .error { color: var(--st-error, #c62828); margin: 0; }
    p { margin: 0; }
  `,
  ]

  /** The page's API (window.snaptrain); without cache entries the control renders nothing. */
  @property({ attribute: false }) api?: CacheApi

  @state() private usage?: UnitCacheUsage
  @state() private enabled = true
  @state() private budget = ''
  @state() private error?: string
  @state() private status?: string
  private open = false
  private timer?: ReturnType<typeof setInterval>
  private reading?: Promise<void>

  connectedCallback(): void {
    super.connectedCallback()
    this.timer = setInterval(() => {
      if (this.open) void this.refresh()
    }, REFRESH_MS)
  }

  disconnectedCallback(): void {
    clearInterval(this.timer)
    super.disconnectedCallback()
  }

  protected willUpdate(changed: Map<string, unknown>): void {
    if (!changed.has('api')) return
    this.readSettings()
    void this.refresh()
  }

  /** Reads the usage again (no two reads at once). */
  async refresh(): Promise<void> {
    const api = this.cacheApi
    if (!api) return
    this.reading ??= api
      .unitCacheUsage()
      .then(
        u => {
          this.usage = u
        },
        (e: Error) => {
          this.error = `Reading the cache's usage: ${e.message}`
        },
      )
      .finally(() => {
        this.reading = undefined
      })
    return this.reading
  }

  render() {
    if (!this.cacheApi) return nothing
    return html`<details @toggle=${this.onToggle}><summary class="usage">${usageLine(this.usage, this.enabled)}</summary>
      <div class="body">
        <label><input type="checkbox" name="enabled" .checked=${this.enabled} @change=${this.onEnabled}>
          Keep what the loader reads (epochs after the first read no table bytes)</label>
        <label>${BUDGET_FIELD} <input name="memory" inputmode="decimal" .value=${this.budget}
          aria-invalid=${this.error ? 'true' : 'false'} @change=${this.onBudget}></label>
        <p class="muted">Beyond the budget, units stay on this browser's disk (OPFS) only.${
          this.usage
            ? ` ${this.usage.entries} in memory, ${this.usage.spilledEntries} on disk, ${this.usage.misses} misses.`
            : ''
        }</p>
        <p><button class="clear" @click=${this.onClear}>Clear cache</button>
          ${this.status ? html`<span class="muted status" role="status">${this.status}</span>` : nothing}</p>
        ${this.error ? html`<p class="error" role="alert">${this.error}</p>` : nothing}
      </div></details>`
  }

  private get cacheApi(): CacheApi | undefined {
    const a = this.api
    return a && typeof a.unitCacheUsage === 'function' ? a : undefined
  }

  private readSettings() {
    const s = this.cacheApi?.unitCacheSettings()
    if (!s) return
    this.enabled = s.enabled
    this.budget = String(Number((s.memoryBytes / 2 ** 20).toFixed(3)))
  }

  private onToggle(e: Event) {
    this.open = (e.target as HTMLDetailsElement).open
    if (this.open) void this.refresh()
  }

  private onEnabled(e: Event) {
    const enabled = (e.target as HTMLInputElement).checked
    this.apply({ enabled }, enabled ? 'Cache on.' : 'Cache off: runs from now on read every epoch from the table.')
  }

  private onBudget(e: Event) {
    const text = (e.target as HTMLInputElement).value
    let memoryBytes: number
    try {
      memoryBytes = budgetBytes(text)
    } catch (err) {
      this.error = (err as Error).message
      this.status = undefined
      return
    }
    this.apply({ memoryBytes }, `Memory budget ${formatBytes(memoryBytes)}.`)
  }

  /** Applies and keeps a change; the cache's refusal is shown naming the field. */
  private apply(change: { enabled?: boolean; memoryBytes?: number }, done: string) {
    const api = this.cacheApi
    if (!api) return
    try {
      api.configureUnitCache(change)
    } catch (err) {
      this.error = `${change.memoryBytes === undefined ? 'Cache' : BUDGET_FIELD}: ${(err as Error).message}`
      return
    }
    keepCacheSettings(change)
    this.error = undefined
    this.status = done
    this.readSettings()
    void this.refresh()
  }

  private async onClear() {
    const api = this.cacheApi
    if (!api) return
    this.status = 'Clearing…'
    try {
      await api.clearUnitCache()
      this.error = undefined
      this.status = 'Cleared.'
    } catch (err) {
      this.status = undefined
      this.error = `Clearing the cache: ${(err as Error).message}`
    }
    await this.refresh()
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'st-cache-control': StCacheControl
  }
}
