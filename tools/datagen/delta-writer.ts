/**
 * A minimal, deterministic Delta Lake writer: Parquet data files plus `_delta_log/%020d.json`
 * commits (protocol 1/2, metaData, add/remove with stats, commitInfo). Nothing reads the wall
 * clock or a random source: commit times are `baseTimeMs + version hours` and names derive from
 * the seed, so the same seed writes byte-identical tables.
 */
import { mkdir, utimes, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fnv1a } from '../../src/util/hash.ts'
import { Rng } from '../../src/util/rng.ts'
import { deltaSchemaString, encodeParquet } from './parquet.ts'
import { fileStats } from './stats.ts'
import type { AddAction, ColumnSpec, FileLayout, Frame, RemoveAction } from './types.ts'

/** 2024-01-01T00:00:00Z: the commit time of every generated table's version 0. */
export const BASE_TIME_MS = Date.UTC(2024, 0, 1)
const HOUR_MS = 3_600_000

/** What a commit records about itself (Delta `commitInfo`). */
export interface CommitMeta {
  operation: 'WRITE' | 'DELETE'
  operationParameters: Record<string, string>
  /** Values are strings, as Spark writes them. */
  operationMetrics: Record<string, string>
}

/** A data file written but not yet committed: its add action and row-group layout. */
export interface WrittenFile {
  add: AddAction
  layout: FileLayout
}

/** Writes one Delta table under `dir`, version by version. */
export class DeltaTableWriter {
  /** Version the next `commit` writes. */
  nextVersion = 0
  private fileCounter = 0

  /**
   * `dir`: table root; `seed`, `name` and `salt` make file names and the table id reproducible.
   * Callers put the row count in `salt`, so a table regenerated with other contents gets other
   * file names and no HTTP cache can serve a stale file under a reused URL.
   */
  constructor(
    readonly dir: string,
    readonly specs: ColumnSpec[],
    readonly seed: number,
    readonly name: string,
    readonly salt = '',
  ) {}

  /** Commit time (ms since epoch) of `version`. */
  timestampOf(version: number): number {
    return BASE_TIME_MS + version * HOUR_MS
  }

  /** Encodes `frame` as a snappy Parquet file in the table root; returns its add action. */
  async writeDataFile(frame: Frame, rowGroupRows: number): Promise<WrittenFile> {
    const index = this.fileCounter++
    const path = `part-${String(index).padStart(5, '0')}-${stableUuid(this.seed, `${this.name}/${this.salt}/file/${index}`)}.snappy.parquet`
    const bytes = encodeParquet(this.specs, frame, rowGroupRows)
    await mkdir(this.dir, { recursive: true })
    const file = join(this.dir, path)
    await writeFile(file, bytes)
    const time = this.timestampOf(this.nextVersion)
    await utimes(file, time / 1000, time / 1000)
    const add: AddAction = {
      path,
      partitionValues: {},
      size: bytes.byteLength,
      modificationTime: time,
      dataChange: true,
      stats: JSON.stringify(fileStats(this.specs, frame)),
    }
    return {
      add,
      layout: {
        path,
        rows: frame.numRows,
        bytes: bytes.byteLength,
        rowGroups: groupSizes(frame.numRows, rowGroupRows),
      },
    }
  }

  /** The remove action for a previously added file, stamped with the next version's time. */
  removeOf(add: AddAction): RemoveAction {
    return {
      path: add.path,
      deletionTimestamp: this.timestampOf(this.nextVersion),
      dataChange: true,
      extendedFileMetadata: true,
      partitionValues: add.partitionValues,
      size: add.size,
    }
  }

  /** Writes the next commit file; version 0 also carries protocol and metaData. */
  async commit(meta: CommitMeta, adds: AddAction[], removes: RemoveAction[]): Promise<number> {
    const version = this.nextVersion
    const lines: unknown[] = [{ commitInfo: this.commitInfo(version, meta) }]
    if (version === 0)
      lines.push({ protocol: { minReaderVersion: 1, minWriterVersion: 2 } }, { metaData: this.metaData() })
    for (const remove of removes) lines.push({ remove })
    for (const add of adds) lines.push({ add })
    const logDir = join(this.dir, '_delta_log')
    await mkdir(logDir, { recursive: true })
    const file = join(logDir, `${String(version).padStart(20, '0')}.json`)
    await writeFile(file, lines.map(l => JSON.stringify(l)).join('\n') + '\n')
    const time = this.timestampOf(version)
    await utimes(file, time / 1000, time / 1000)
    this.nextVersion++
    return version
  }

  private metaData(): Record<string, unknown> {
    return {
      id: stableUuid(this.seed, `${this.name}/${this.salt}/table`),
      name: this.name,
      format: { provider: 'parquet', options: {} },
      schemaString: deltaSchemaString(this.specs),
      partitionColumns: [],
      configuration: {},
      createdTime: this.timestampOf(0),
    }
  }

  private commitInfo(version: number, meta: CommitMeta): Record<string, unknown> {
    return {
      timestamp: this.timestampOf(version),
      operation: meta.operation,
      operationParameters: meta.operationParameters,
      readVersion: version > 0 ? version - 1 : undefined,
      isolationLevel: 'Serializable',
      // As Spark: only an append that read nothing is blind; an overwrite or a delete is not.
      isBlindAppend: meta.operationParameters.mode === 'Append',
      operationMetrics: meta.operationMetrics,
      engineInfo: 'snaptrain-datagen',
    }
  }
}

/** Row counts of the row groups hyparquet-writer makes for `rows` rows at `perGroup` each. */
export function groupSizes(rows: number, perGroup: number): number[] {
  const out: number[] = []
  for (let start = 0; start < rows; start += perGroup) out.push(Math.min(perGroup, rows - start))
  return out
}

/** A UUID-shaped (v4 layout) id that depends only on `seed` and `key`. */
export function stableUuid(seed: number, key: string): string {
  const rng = new Rng((seed ^ fnv1a(key)) >>> 0)
  const hex = Array.from({ length: 4 }, () => rng.nextU32().toString(16).padStart(8, '0')).join('')
  const v4 = hex.slice(0, 12) + '4' + hex.slice(13, 16) + '89ab'[parseInt(hex[16], 16) & 3] + hex.slice(17)
  return `${v4.slice(0, 8)}-${v4.slice(8, 12)}-${v4.slice(12, 16)}-${v4.slice(16, 20)}-${v4.slice(20, 32)}`
}
