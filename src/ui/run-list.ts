/**
 * What the page says about a kept run wherever it shows one (the home list, the run view, the
 * comparison): its name (given, or a default for runs kept before names existed), its score line,
 * and the names of its downloads (the run's name, made safe for file systems, before the CLI's file
 * names: the bytes are the CLI's).
 */
import type { StoredRun } from '../api-types.ts'
import { familyOf } from '../models/registry.ts'

/** Which file of a run to download. */
export type RunFileKind = 'model' | 'manifest' | 'metrics' | 'continue'

/** Detail of `run-download`. */
export interface RunDownloadDetail {
  id: string
  file: RunFileKind
}

/**
 * A run's score: the AUC of a binary run; of any other task (multiclass, whose auc is
 * one-vs-rest, ranking, regression), or a binary run without AUC, its last metric, the one early
 * stopping watches.
 */
export function runScore(r: StoredRun): string {
  const family = familyOf(r.model)
  const last = Object.entries(r.summary.eval ?? {}).at(-1)
  const binary = family.task(r.params) === 'binary'
  return (!binary || r.summary.auc === null) && last
    ? `${last[0]} ${last[1].toFixed(4)}`
    : binary
      ? `AUC ${r.summary.auc === null ? '–' : r.summary.auc.toFixed(4)}`
      : 'no validation metric'
}

/** What a run's line says: model, rounds (or evaluations), the score, stopped. */
export function runLine(r: StoredRun): string {
  const what = `${r.summary.rounds} ${familyOf(r.model).evaluation}s`
  return `${r.model} · ${what} · ${runScore(r)}${r.stopped ? ' · stopped' : ''}`
}

/** The run's name; a run kept before names existed reads `<table>-<model>-<first 6 of its id>`. */
export function runName(r: StoredRun): string {
  return r.name || `${r.table.name}-${r.model}-${r.id.slice(0, 6)}`
}

/** The default name of a new run: `<table>-<model>-<n>`, n one more than the highest of that stem among `runs`. */
export function nextRunName(runs: readonly StoredRun[], r: Pick<StoredRun, 'table' | 'model'>): string {
  const stem = `${r.table.name}-${r.model}-`
  const taken = runs.flatMap(x => {
    const n = x.name?.startsWith(stem) ? Number(x.name.slice(stem.length)) : Number.NaN
    return Number.isInteger(n) ? [n] : []
  })
  return `${stem}${Math.max(0, ...taken) + 1}`
}

/** `name` safe as a file name on every common file system: no path separators, reserved or control characters. */
export function fileStem(name: string): string {
  const safe = name
    .replace(/[\\/:*?"<>|\u0000-\u001f]+/g, '_')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^\.+/, '')
    .slice(0, 100)
  return safe || 'run'
}

/** The download name of a run's file `cliName` (model.json, manifest.json, metrics.csv, continue.zip): `<run-name>.<cliName>`. */
export function runFileName(r: StoredRun, cliName: string): string {
  return `${fileStem(runName(r))}.${cliName}`
}

/** Tags typed as text (comma-separated), trimmed, empty and repeated ones dropped. */
export function parseTags(text: string): string[] {
  return [
    ...new Set(
      text
        .split(',')
        .map(t => t.trim())
        .filter(t => t !== ''),
    ),
  ]
}
