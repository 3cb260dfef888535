/**
 * trials.csv is one file: the page's download (ui/sweep-files.ts) and `snaptrain sweep`'s DIR
 * (cli/sweep.ts) write the same bytes for the same sweep state.
 */
import { expect, it } from 'vitest'
import { sweepOutputFiles } from '../../../src/cli/sweep.ts'
import { sweepFile } from '../../../src/ui/sweep-files.ts'
import type { SweepApi } from '../../../src/ui/types.ts'
import type { SweepState, TrialRecord } from '../../../src/tune/types.ts'

function state(): SweepState {
  const trials: TrialRecord[] = [
    // A value needing quoting (comma, quote, line break), a param only some trials have, a missing metric.
    {
      id: 1,
      config: { eta: 0.2 },
      status: 'failed',
      bracket: 0,
      rung: 0,
      resource: 3,
      curve: [],
      gpuSeconds: 0,
      wallSeconds: 0.1,
      error: 'bad, "quoted"\nline',
    },
    {
      id: 0,
      config: { eta: 0.1, note: 'a,"b"', layers: [64, 32] },
      status: 'completed',
      bracket: 0,
      rung: 0,
      resource: 3,
      curve: [{ resource: 3, metric: 0.7, elapsedMs: 9 }],
      metric: 0.7,
      gpuSeconds: 1.5,
      wallSeconds: 2,
    },
    {
      id: 2,
      config: { eta: 0.1, note: 'a,"b"', layers: [64, 32] },
      status: 'running',
      bracket: 0,
      rung: 1,
      resource: 9,
      promotedFrom: 0,
      curve: [{ resource: 4, metric: 0.71, elapsedMs: 3 }],
      metric: undefined,
      gpuSeconds: 2,
      wallSeconds: 2,
    },
  ]
  return {
    id: 'S',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
    status: 'running',
    trials,
    stoppedEarly: 0,
    gpuSeconds: 3.5,
    gpuSecondsFullBudget: 10,
    wallSeconds: 5,
    config: { model: 'gbdt', table: 'http://x/t', label: 'y', strategy: 'hyperband', seed: 1 },
  }
}

it('the page download and the CLI file are byte-identical', async () => {
  const s = state()
  const page = await sweepFile({} as SweepApi, s, 'csv')
  const pageBytes = new Uint8Array(await page.blob.arrayBuffer())
  const cli = sweepOutputFiles({ 'csv-formula-guard': false }, { state: s, exported: '{}' })['trials.csv']
  const cliBytes = new TextEncoder().encode(cli as string)
  expect(page.name).toBe('sweep-S-trials.csv')
  expect(pageBytes).toEqual(cliBytes)
  expect(new TextDecoder().decode(pageBytes)).toBe(
    [
      'trial,status,state,bracket,rung,resource,reached,promoted_from,metric,gpu_seconds,wall_seconds,error,eta,layers,note',
      '0,completed,complete,0,0,3,3,,0.7,1.5,2,,0.1,"[64,32]","a,""b"""',
      '1,failed,failed,0,0,3,,,,0,0.1,"bad, ""quoted""\nline",0.2,,',
      '2,running,running,0,1,9,4,0,,2,2,,0.1,"[64,32]","a,""b"""',
      '',
    ].join('\r\n'),
  )
})
