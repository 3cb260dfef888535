/** The scale-out suite's pure parts: run labels round-trip into points, the Markdown table and the SVG plot. */
import { describe, expect, test } from 'vitest'
import { scaleoutSvg } from '../../bench/scaleout-plot.ts'
import {
  caseLabel,
  caseParams,
  SCALEOUT_METRICS,
  SCALEOUT_SIZES,
  scaleoutMarkdown,
  scaleoutPoints,
  type ScaleoutCase,
} from '../../bench/scaleout-rows.ts'

const CLICKS = SCALEOUT_SIZES.datasets[0]

function rowsOf(c: ScaleoutCase, auc: number, tput: number): { workload: string; metric: string; value: number }[] {
  const workload = caseLabel(CLICKS, c, 256)
  return [
    { workload, metric: SCALEOUT_METRICS.auc[0], value: auc },
    { workload, metric: SCALEOUT_METRICS.throughput[0], value: tput },
    { workload, metric: SCALEOUT_METRICS.wall[0], value: 30 },
    { workload, metric: SCALEOUT_METRICS.train[0], value: 20 },
    { workload, metric: SCALEOUT_METRICS.steps[0], value: 64 / c.ranks },
  ]
}

describe('scaleout rows', () => {
  test('labels parse back into one point per run with every metric', () => {
    const rows = [
      ...rowsOf({ ranks: 1, rule: 'none' }, 0.7, 900),
      ...rowsOf({ ranks: 4, rule: 'sqrt' }, 0.65, 800),
      { workload: 'other', metric: 'x', value: 1 },
    ]
    const pts = scaleoutPoints(rows)
    expect(pts).toEqual([
      {
        dataset: 'clicks',
        ranks: 1,
        rule: 'none',
        batch: 256,
        wallS: 30,
        trainS: 20,
        samplesPerS: 900,
        auc: 0.7,
        steps: 64,
      },
      {
        dataset: 'clicks',
        ranks: 4,
        rule: 'sqrt',
        batch: 256,
        wallS: 30,
        trainS: 20,
        samplesPerS: 800,
        auc: 0.65,
        steps: 16,
      },
    ])
    const md = scaleoutMarkdown(pts).split('\n')
    expect(md).toHaveLength(4)
    expect(md[3]).toBe('| clicks | 4 | (b) × √R, warmup | 1024 | 16 | 30.0 | 20.0 | 800 | 0.650 |')
  })

  test('scaled runs get lr_scaling and warmup; (a) runs the shared params only', () => {
    expect(caseParams(SCALEOUT_SIZES, { ranks: 2, rule: 'none' })).toEqual(SCALEOUT_SIZES.params)
    expect(caseParams(SCALEOUT_SIZES, { ranks: 2, rule: 'linear' })).toMatchObject({
      lr_scaling: 'linear',
      warmup_steps: SCALEOUT_SIZES.warmup,
    })
  })

  test('the SVG has both panels, a line per dataset × rule starting at R = 1, and no NaN coordinates', () => {
    const rows = [1, 2, 4]
      .flatMap(r => rowsOf({ ranks: r, rule: 'none' }, 0.7 - 0.02 * r, 900 - 50 * r))
      .concat([2, 4].flatMap(r => rowsOf({ ranks: r, rule: 'sqrt' }, 0.69, 850)))
    const svg = scaleoutSvg(scaleoutPoints(rows))
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/)
    expect(svg).toContain('validation AUC')
    expect(svg).toContain('samples/s (all ranks)')
    expect(svg.match(/<polyline/g)).toHaveLength(4) // 2 rules × 2 panels
    expect(svg.match(/<circle/g)).toHaveLength(12) // 3 points per line
    expect(svg).not.toContain('NaN')
    expect(svg).toContain('clicks (b) lr × √R + warmup')
  })
})
