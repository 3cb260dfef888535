import { describe, expect, it } from 'vitest'
import { exportSweep, importSweep, trialsCsv } from '../../../src/tune/export.ts'
import { csvField } from '../../../src/util/csv.ts'
import { MemoryStore } from '../../../src/sweep/store-memory.ts'
import type { SweepState, TrialRecord } from '../../../src/tune/types.ts'

function sweep(id = 's1', createdAt = '2026-01-01T00:00:00Z'): SweepState {
  const trials: TrialRecord[] = [
    {
      id: 0,
      config: { eta: 0.1, layers: [64, 32], note: 'a,"b"' },
      status: 'completed',
      bracket: 1,
      rung: 0,
      resource: 3,
      curve: [
        { resource: 1, metric: 0.6, elapsedMs: 5 },
        { resource: 3, metric: 0.7, elapsedMs: 9 },
      ],
      metric: 0.7,
      gpuSeconds: 1.5,
      wallSeconds: 2,
    },
    {
      id: 1,
      config: { eta: 0.2 },
      status: 'failed',
      bracket: 1,
      rung: 0,
      resource: 3,
      curve: [],
      gpuSeconds: 0,
      wallSeconds: 0.1,
      error: 'line1\nline2',
    },
    {
      id: 2,
      config: { eta: 0.1, layers: [64, 32], note: 'a,"b"' },
      status: 'stopped',
      bracket: 1,
      rung: 1,
      resource: 9,
      promotedFrom: 0,
      curve: [{ resource: 4, metric: 0.71, elapsedMs: 3 }],
      metric: 0.71,
      gpuSeconds: 2,
      wallSeconds: 2,
    },
  ]
  return {
    id,
    createdAt,
    updatedAt: createdAt,
    status: 'finished',
    trials,
    stoppedEarly: 1,
    gpuSeconds: 3.5,
    gpuSecondsFullBudget: 10,
    wallSeconds: 5,
    config: { model: 'gbdt', table: 'http://x/t', label: 'y', strategy: 'hyperband', seed: 1 },
    best: { trial: 2, params: trials[2].config, metric: 0.71 },
  }
}

describe('export / import', () => {
  it('round-trips a sweep', () => {
    expect(importSweep(exportSweep(sweep()))).toEqual(sweep())
    expect(JSON.parse(exportSweep(sweep())).format).toBe('snaptrain-sweep')
  })
  it.each([
    ['not json', /sweep file: not JSON/],
    [JSON.stringify({ format: 'other', version: 1, sweep: {} }), /format: must be 'snaptrain-sweep'/],
    [JSON.stringify({ format: 'snaptrain-sweep', version: 2, sweep: {} }), /version: must be 1/],
    [JSON.stringify({ ...sweep(), status: 'odd' }), /sweep\.status: must be one of/],
    [
      JSON.stringify({ ...sweep(), config: { ...sweep().config, strategy: 'bayes' } }),
      /sweep\.config\.strategy: must be one of/,
    ],
    [JSON.stringify({ ...sweep(), trials: [{ ...sweep().trials[0], status: 'ok' }] }), /sweep\.trials\[0\]\.status/],
    [
      JSON.stringify({ ...sweep(), trials: [{ ...sweep().trials[0], curve: [{ resource: 1 }] }] }),
      /sweep\.trials\[0\]\.curve\[0\]\.metric: must be a number/,
    ],
    [JSON.stringify({ ...sweep(), gpuSeconds: '3' }), /sweep\.gpuSeconds: must be a number/],
  ])('refuses %s', (text, msg) => {
    expect(() => importSweep(text)).toThrow(msg)
  })
})

describe('trialsCsv', () => {
  it('quotes per RFC 4180 and writes one column per parameter', () => {
    const csv = trialsCsv(sweep().trials)
    const lines = csv.split('\r\n')
    expect(lines[0]).toBe(
      'trial,status,state,bracket,rung,resource,reached,promoted_from,metric,gpu_seconds,wall_seconds,error,eta,layers,note',
    )
    expect(lines[1]).toBe('0,completed,,1,0,3,3,,0.7,1.5,2,,0.1,"[64,32]","a,""b"""')
    expect(lines[2]).toBe('1,failed,,1,0,3,,,,0,0.1,"line1\nline2",0.2,,')
    expect(csv.endsWith('\r\n')).toBe(true)
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a\rb')).toBe('"a\rb"')
  })
  it('prefixes a parameter named like a fixed column', () => {
    expect(
      trialsCsv([{ ...sweep().trials[1], config: { status: 1 } }])
        .split('\r\n')[0]
        .endsWith(',param_status'),
    ).toBe(true)
  })
})

describe('MemoryStore', () => {
  it('puts, gets, lists, deletes and keeps artifacts per trial', async () => {
    const s = new MemoryStore()
    await s.put(sweep('b', '2026-01-02T00:00:00Z'))
    await s.put(sweep('a', '2026-01-03T00:00:00Z'))
    const got = (await s.get('b'))!
    got.trials.length = 0
    expect((await s.get('b'))!.trials).toHaveLength(3) // stored copies are not aliased
    expect((await s.list()).map(x => x.id)).toEqual(['b', 'a'])
    await s.putArtifacts('b', 2, { model: '{}' })
    await s.putArtifacts('b', 2, { manifest: { seed: 1 } })
    expect(await s.getArtifacts('b', 2)).toEqual({ model: '{}', manifest: { seed: 1 } })
    expect(await s.getArtifacts('b', 1)).toBeUndefined()
    await s.delete('b')
    expect(await s.get('b')).toBeUndefined()
    expect(await s.getArtifacts('b', 2)).toBeUndefined()
    expect((await s.list()).map(x => x.id)).toEqual(['a'])
  })
})
