/**
 * The Delta Sharing profiles of the app shell: opens a chosen profile file through the library
 * API (proxy or direct, openProfile decides), lists what it may read, and answers which access a
 * table URL needs. A ReactiveController like TableController, so st-app stays the one mediator.
 * Accesses are kept in this object's memory only: never in IndexedDB, localStorage, the URL or a
 * sweep record, so a reload forgets them and the profile must be opened again.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import type { ShareAccess, SnaptrainApi, TableAccess } from '../api-types.ts'
import { withTimeout } from '../util/deadline.ts'
import { toErrorView } from './errors.ts'
import type { ErrorView, LoadState, ProfileOpenDetail, ProfileView, SharedShareView } from './types.ts'

/** Read its fields in the host's render(). */
export class ShareController implements ReactiveController {
  /** The profile shown (the last one opened). */
  profile?: ProfileView
  shares: SharedShareView[] = []
  state: LoadState = 'idle'
  error?: ErrorView
  /** Every profile opened in this page session, newest last: tables of an older one still open. */
  private readonly opened: ShareAccess[] = []
  private ticket = 0

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => SnaptrainApi,
    private readonly timeoutMs: () => number,
  ) {
    host.addController(this)
  }

  hostConnected(): void {}

  /** Opens the chosen profile and lists its shares; resolves when shown or failed, never rejects. */
  async open({ text, name }: ProfileOpenDetail): Promise<void> {
    const ticket = ++this.ticket
    Object.assign(this, { state: 'loading', error: undefined })
    this.host.requestUpdate()
    let step = `Opening profile ${name}`
    try {
      const opened = await this.bounded(this.api().openProfile(text, { source: name }), step)
      this.opened.push(opened.access)
      if (ticket !== this.ticket) return
      this.profile = { source: name, endpoint: opened.endpoint, mode: opened.mode }
      this.shares = []
      step =
        opened.mode === 'direct'
          ? `Listing the shares of ${name} directly (the sharing server must allow this page's origin: CORS)`
          : `Listing the shares of ${name}`
      const shares = await this.bounded(this.api().listShares(opened.access), step)
      if (ticket !== this.ticket) return
      Object.assign(this, { shares, state: 'ready' })
    } catch (e) {
      if (ticket !== this.ticket) return
      Object.assign(this, { state: 'error', error: toErrorView(step, e) })
    }
    this.host.requestUpdate()
  }

  /** The access a table URL is read with: the newest opened profile whose endpoint it is under. */
  accessFor(url: string): TableAccess | undefined {
    return this.opened.findLast(a => url.startsWith(a.profile.endpoint))
  }

  private bounded<T>(p: Promise<T>, what: string): Promise<T> {
    const ms = this.timeoutMs()
    return withTimeout(p, ms, `${what}: no answer within ${ms / 1000} s`)
  }
}
