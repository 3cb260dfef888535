/**
 * The open table of the app shell: its history, the snapshot at the chosen version and the first
 * rows. A ReactiveController so st-app stays a thin layout; it is the only UI code besides
 * st-app that calls the library API. Every step is bounded by a deadline, so the page always
 * ends in 'ready' or 'error', and a newer request makes older answers be ignored.
 */
import type { ReactiveController, ReactiveControllerHost } from 'lit'
import type { CommitInfo, Row, Snapshot, SnaptrainApi, TableAccess } from '../api-types.ts'
import { withTimeout } from '../util/deadline.ts'
import { toErrorView } from './errors.ts'
import type { ErrorView, LoadState, TableSelectDetail } from './types.ts'

/** Settings of the controller. */
export interface TableControllerOptions {
  /** Rows shown in the preview (read at each open, so the host's property may change). */
  previewRows: () => number
  /** Deadline per step in ms (history, snapshot, rows). */
  stepTimeoutMs: () => number
  /** Commit history of a table URL (memoised by the host, shared with the table list). */
  commitsOf: (url: string) => Promise<CommitInfo[]>
  /** The governed access a table URL is read with (a share's), if any. */
  accessOf?: (url: string) => TableAccess | undefined
}

/** Loads a table for display; read its fields in the host's render(). */
export class TableController implements ReactiveController {
  table?: TableSelectDetail
  commits: CommitInfo[] = []
  snapshot?: Snapshot
  rows: Row[] = []
  state: LoadState = 'idle'
  /** What is being done now, e.g. "Reading the first 20 rows". */
  stage = ''
  error?: ErrorView
  private ticket = 0

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly api: () => SnaptrainApi,
    private readonly opts: TableControllerOptions,
  ) {
    host.addController(this)
  }

  hostConnected(): void {}

  /** Opens `table` at `version` (default latest); resolves when shown or failed, never rejects. */
  async open(table: TableSelectDetail, version?: number): Promise<void> {
    const ticket = ++this.ticket
    if (this.table?.url !== table.url) Object.assign(this, { commits: [], snapshot: undefined, rows: [] })
    Object.assign(this, { table, state: 'loading', error: undefined })
    const at = version === undefined ? 'the latest version' : `version ${version}`
    const access = this.opts.accessOf?.(table.url)
    try {
      this.commits = await this.step(ticket, 'Reading the commit history', () => this.opts.commitsOf(table.url))
      this.snapshot = undefined
      this.snapshot = await this.step(ticket, `Opening ${at}`, () =>
        this.api().openSnapshot(table.url, { version, access }),
      )
      this.rows = []
      const snapshot = this.snapshot
      const limit = this.opts.previewRows()
      const source = access
        ? await this.step(ticket, `Asking for ${limit} rows' files`, () =>
            this.previewSnapshot(snapshot, version, limit, access),
          )
        : snapshot
      this.rows = await this.step(ticket, `Reading the first ${limit} rows`, () =>
        this.api().readRows(source, { limit, access }),
      )
      this.finish(ticket, 'ready')
    } catch (e) {
      if (e === STALE) return
      this.finish(ticket, 'error', toErrorView(`${this.stage} of table ${table.name}`, e))
    }
  }

  /**
   * A share's snapshot for the preview: the server is asked (limitHint) for just enough files for
   * `limit` rows. Asked as the table was (latest, or the version picked), since a provider that
   * does not share history refuses version queries; an answer of another version (a commit since)
   * falls back to the full snapshot's files.
   */
  private async previewSnapshot(
    full: Snapshot,
    version: number | undefined,
    limit: number,
    access: TableAccess,
  ): Promise<Snapshot> {
    const hinted = await this.api().openSnapshot(full.tableUrl, { version, limitHint: limit, access })
    return hinted.version === full.version ? hinted : full
  }

  private async step<T>(ticket: number, stage: string, work: () => Promise<T>): Promise<T> {
    this.stage = stage
    this.host.requestUpdate()
    const ms = this.opts.stepTimeoutMs()
    const value = await withTimeout(work(), ms, `${stage}: no answer within ${ms / 1000} s`)
    if (ticket !== this.ticket) throw STALE
    return value
  }

  private finish(ticket: number, state: LoadState, error?: ErrorView): void {
    if (ticket !== this.ticket) return
    Object.assign(this, { state, error })
    this.host.requestUpdate()
  }
}

/** Thrown inside open() when a newer request superseded this one. */
const STALE = Symbol('stale request')
