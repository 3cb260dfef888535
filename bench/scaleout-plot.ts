/**
 * The scale-out plot (bench/scaleout.svg) as plain SVG text from the suite's points: validation
 * AUC vs ranks R (left) and samples/s vs R (right), one line per dataset × lr rule. The R = 1
 * run starts both rule lines of a dataset (scaling is the identity at R = 1). No dependencies,
 * so the CLI writes it in Node next to the results JSON.
 */
import type { ScaleoutPoint } from './scaleout-rows.ts'

interface Series {
  name: string
  color: string
  dash: string
  points: Array<[number, number]>
}

const W = 420,
  H = 300,
  PAD = { l: 56, r: 20, t: 28, b: 40 }
const COLORS: Record<string, string> = { clicks: '#1f77b4', marketing: '#d62728' }

/** The whole figure: two panels side by side, legend below. */
export function scaleoutSvg(
  points: readonly ScaleoutPoint[],
  title = 'Recommender scale-out on one software adapter',
): string {
  const auc = series(points, p => p.auc)
  const tput = series(points, p => p.samplesPerS)
  const legend = auc
    .map(
      (s, i) =>
        `<g transform="translate(${PAD.l + (i % 2) * 330},${H + 24 + Math.floor(i / 2) * 18})"><line x1="0" y1="-4" x2="24" y2="-4" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}"/><text x="30" y="0">${esc(s.name)}</text></g>`,
    )
    .join('')
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${2 * W}" height="${H + 84}" font-family="sans-serif" font-size="12">` +
    `<rect width="100%" height="100%" fill="white"/><text x="${W}" y="16" text-anchor="middle" font-size="14">${esc(title)}</text>` +
    `<g transform="translate(0,8)">${panel(auc, 'validation AUC')}</g><g transform="translate(${W},8)">${panel(tput, 'samples/s (all ranks)')}</g>${legend}</svg>\n`
  )
}

/** One line per dataset × rule ('none' = (a), others = (b)), points sorted by R. */
function series(points: readonly ScaleoutPoint[], y: (p: ScaleoutPoint) => number): Series[] {
  const out: Series[] = []
  for (const dataset of [...new Set(points.map(p => p.dataset))]) {
    const mine = points.filter(p => p.dataset === dataset && Number.isFinite(y(p)))
    const base = mine.filter(p => p.ranks === 1)
    for (const rule of ['none', 'sqrt', 'linear'] as const) {
      const pts = [...base, ...mine.filter(p => p.rule === rule && p.ranks > 1)].sort((a, b) => a.ranks - b.ranks)
      if (!pts.some(p => p.ranks > 1)) continue
      const name = `${dataset} ${rule === 'none' ? '(a) lr unchanged' : `(b) lr × ${rule === 'sqrt' ? '√R' : 'R'} + warmup`}`
      out.push({
        name,
        color: COLORS[dataset] ?? '#555',
        dash: rule === 'none' ? '' : rule === 'sqrt' ? '6 3' : '2 3',
        points: pts.map(p => [p.ranks, y(p)]),
      })
    }
  }
  return out
}

/** Axes (x: R = 1, 2, 4 on a log2 scale), grid, y ticks and the series' lines and dots. */
function panel(all: Series[], yLabel: string): string {
  const xs = [...new Set(all.flatMap(s => s.points.map(p => p[0])))].sort((a, b) => a - b)
  const ys = all.flatMap(s => s.points.map(p => p[1]))
  if (!xs.length || !ys.length) return `<text x="${W / 2}" y="${H / 2}" text-anchor="middle">no data</text>`
  const [lo, hi] = padRange(Math.min(...ys), Math.max(...ys))
  const lx = (x: number): number => Math.log2(x),
    x0 = lx(xs[0]),
    x1 = Math.max(lx(xs[xs.length - 1]), x0 + 1)
  const sx = (x: number): number => PAD.l + ((lx(x) - x0) / (x1 - x0)) * (W - PAD.l - PAD.r)
  const sy = (y: number): number => H - PAD.b - ((y - lo) / (hi - lo)) * (H - PAD.t - PAD.b)
  const yt = ticks(lo, hi)
    .map(
      v =>
        `<line x1="${PAD.l}" x2="${W - PAD.r}" y1="${sy(v)}" y2="${sy(v)}" stroke="#ddd"/><text x="${PAD.l - 6}" y="${sy(v) + 4}" text-anchor="end">${fmt(v)}</text>`,
    )
    .join('')
  const xt = xs.map(x => `<text x="${sx(x)}" y="${H - PAD.b + 16}" text-anchor="middle">${x}</text>`).join('')
  const lines = all
    .map(
      s =>
        `<polyline fill="none" stroke="${s.color}" stroke-width="2" stroke-dasharray="${s.dash}" points="${s.points.map(p => `${sx(p[0]).toFixed(1)},${sy(p[1]).toFixed(1)}`).join(' ')}"/>` +
        s.points
          .map(p => `<circle cx="${sx(p[0]).toFixed(1)}" cy="${sy(p[1]).toFixed(1)}" r="3" fill="${s.color}"/>`)
          .join(''),
    )
    .join('')
  const axes = `<line x1="${PAD.l}" y1="${H - PAD.b}" x2="${W - PAD.r}" y2="${H - PAD.b}" stroke="#333"/><line x1="${PAD.l}" y1="${PAD.t}" x2="${PAD.l}" y2="${H - PAD.b}" stroke="#333"/>`
  const labels = `<text x="${(W + PAD.l) / 2}" y="${H - 6}" text-anchor="middle">ranks R (global batch = R × per-rank batch)</text><text x="${PAD.l}" y="${PAD.t - 8}">${esc(yLabel)}</text>`
  return yt + axes + xt + lines + labels
}

function padRange(lo: number, hi: number): [number, number] {
  const span = hi - lo || Math.abs(hi) * 0.1 || 1
  return [lo - span * 0.1, hi + span * 0.1]
}

/** About five round tick values in [lo, hi]. */
function ticks(lo: number, hi: number): number[] {
  const step = 10 ** Math.floor(Math.log10((hi - lo) / 5))
  const nice = [1, 2, 5, 10].map(k => k * step).find(s => (hi - lo) / s <= 6) ?? 10 * step
  const out: number[] = []
  for (let v = Math.ceil(lo / nice) * nice; v <= hi; v += nice) out.push(Number(v.toPrecision(6)))
  return out
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 ? String(Math.round(v)) : String(Number(v.toPrecision(3)))
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}
