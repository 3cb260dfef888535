/** Plain-text rendering of bench rows for the terminal (pure; used by the CLI). */
import type { BenchRow } from './types.ts'

/** A number with about 3 significant digits, no exponent for everyday magnitudes. */
export function formatNumber(v: number | undefined): string {
  if (v === undefined) return ''
  if (!Number.isFinite(v)) return String(v)
  const a = Math.abs(v)
  if (a >= 100) return v.toFixed(0)
  if (a >= 10) return v.toFixed(1)
  if (a >= 0.01 || a === 0) return v.toFixed(a >= 1 ? 2 : 3)
  return v.toExponential(2)
}

const HEADER = ['workload', 'metric', 'value', 'unit', 'min/median/max', 'peer', 'ratio'] as const

/** Rows as an aligned table: workload, metric, value, unit, min/median/max, peer, ratio. */
export function formatTable(rows: readonly BenchRow[]): string {
  const cells = rows.map(r => [
    r.workload,
    r.metric,
    formatNumber(r.value),
    r.unit,
    `${formatNumber(r.min)}/${formatNumber(r.median)}/${formatNumber(r.max)}`,
    r.peer ?? '',
    r.ratio === undefined ? '' : `${formatNumber(r.ratio)}×`,
  ])
  const all = [[...HEADER], ...cells]
  const widths = HEADER.map((_, c) => Math.max(...all.map(row => row[c].length)))
  // Numbers read best right-aligned (value, ratio); text left-aligned.
  const right = new Set([2, 6])
  return all
    .map(row =>
      row
        .map((cell, c) => (right.has(c) ? cell.padStart(widths[c]) : cell.padEnd(widths[c])))
        .join('  ')
        .trimEnd(),
    )
    .join('\n')
}

/** Rows as a GitHub-flavoured Markdown table (same columns as `formatTable`), for READMEs. */
export function formatMarkdown(rows: readonly BenchRow[]): string {
  const line = (cells: readonly string[]): string => `| ${cells.join(' | ')} |`
  return [
    line(HEADER),
    line(HEADER.map((_, c) => (c === 2 || c === 6 ? '---:' : '---'))),
    ...rows.map(r =>
      line([
        r.workload,
        r.metric,
        formatNumber(r.value),
        r.unit,
        `${formatNumber(r.min)} / ${formatNumber(r.median)} / ${formatNumber(r.max)}`,
        r.peer ?? '',
        r.ratio === undefined ? '' : `${formatNumber(r.ratio)}×`,
      ]),
    ),
  ].join('\n')
}
