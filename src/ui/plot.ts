/**
 * The one place the app's charts (sweeps, the training curve, st-line-chart) create uPlot
 * instances: (re)builds a plot in a component's shadow root and destroys the previous one, so
 * every chart component stays presentational and leak-free. uPlot's stylesheet is exported for
 * the components' static styles.
 */
import { unsafeCSS } from 'lit'
import uPlot from 'uplot'
import uPlotCss from 'uplot/dist/uPlot.min.css?inline'
import type { Columns } from './sweep-chart-data.ts'

/** Data of a faceted plot (uPlot `mode: 2`): no shared x column, then each series' own [xs, ys]. */
export type FacetedData = [null, ...Array<[number[], number[]]>]

/** uPlot's CSS as a Lit style (legend, cursor, axes). */
export const plotStyles = unsafeCSS(uPlotCss)

/** Holds at most one uPlot in `target`; `draw` replaces it, `clear` removes it. */
export class PlotSlot {
  plot?: uPlot

  /** Replaces the plot in `target` with one built from `opts` and `data` (faceted when `opts.mode` is 2). */
  draw(target: HTMLElement, opts: uPlot.Options, data: Columns | FacetedData): uPlot {
    this.clear()
    // uPlot's typings model only aligned data; the faceted form is passed through as is.
    this.plot = new uPlot(opts, data as uPlot.AlignedData, target)
    return this.plot
  }

  /** Destroys the plot, if any. */
  clear(): void {
    this.plot?.destroy()
    this.plot = undefined
  }
}

/** Palette of trial lines (cycled by trial id). */
const PALETTE = [
  '#2f6fde',
  '#2b8a3e',
  '#d9480f',
  '#862e9c',
  '#0b7285',
  '#c2255c',
  '#5c940d',
  '#e67700',
  '#364fc7',
  '#a61e4d',
]

/** Colour of trial `id`'s line. */
export function trialColour(id: number): string {
  return PALETTE[id % PALETTE.length]!
}

/** Counts of non-null values of the y columns (what a chart reflects as data-points). */
export function pointCount(data: Columns): number {
  return data
    .slice(1)
    .reduce((n, ys) => n + (ys as Array<number | null>).filter(v => v !== null && v !== undefined).length, 0)
}
