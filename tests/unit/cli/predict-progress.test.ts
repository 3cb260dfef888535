/**
 * Progress of the work before round 1 and of `snaptrain predict`: the run's shader-compilation
 * stage (counts while waiting, then how long it took, the line a pipe gets), and predict's rows
 * scored of the total — piped, the first and last line and at most one a second in between.
 */
import { describe, expect, it } from 'vitest'
import { predictProgress } from '../../../src/cli/predict.ts'
import { progress } from '../../../src/cli/progress.ts'
import { compilingStage } from '../../../src/run/pipeline.ts'

describe('progress before round 1 and of predict', () => {
  it('compiling: k / n while waiting, then the count and the time', () => {
    expect(compilingStage(12, 40)).toEqual({ kind: 'stage', message: 'compiling GPU kernels 12 / 40', fraction: 0.3 })
    expect(compilingStage(40, 40, 12_345)).toEqual({
      kind: 'stage',
      message: 'compiled 40 GPU kernels in 12.3 s',
      fraction: 1,
    })
    expect(compilingStage(0, 0)).toEqual({ kind: 'stage', message: 'preparing the GPU kernels' })
  })

  it('predict, piped: the stages, then rows done of the total at most once a second', () => {
    const lines: string[] = []
    let t = 0
    const on = predictProgress(progress({ out: () => {}, err: l => lines.push(l) }), () => t)
    const send = (p: object) => on(JSON.stringify(p))
    send({ message: 'reading 3 feature columns of version 0' })
    const scoring = 'scoring 5000 rows'
    for (let done = 0; done <= 5000; done += 500, t += 300) send({ message: scoring, done, total: 5000 })
    on.end()
    expect(lines).toEqual([
      'predict: reading 3 feature columns of version 0',
      `predict: ${scoring}`,
      'predict: 0 / 5000 rows', // t = 0
      'predict: 2000 / 5000 rows', // t = 1200: a second after the last line
      'predict: 4000 / 5000 rows', // t = 2400
      'predict: 5000 / 5000 rows', // the last, always
    ])
  })
})
