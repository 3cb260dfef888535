/**
 * The page's proposals per adapter (src/ui/adapter-defaults.ts): a software adapter (fallback, or
 * SwiftShader by name) gets smaller first-run parameters and sweep budget, with a reason; costs
 * in minutes come from the rate a finished run kept for that adapter and model, and say so.
 */
import { describe, expect, it } from 'vitest'
import {
  keepRate,
  minutesText,
  pageParamsFor,
  readRate,
  stepsMinutesText,
  softwareAdapter,
  softwareNote,
  sweepBatch,
  sweepMaxResourceFor,
} from '../../../src/ui/adapter-defaults.ts'
import { adapterLabel } from '../../../src/gpu/device.ts'
import { familyOf } from '../../../src/models/registry.ts'
import { stepsPerEpoch } from '../../../src/models/recsys/params.ts'
import type { AdapterView } from '../../../src/ui/types.ts'

const base = { device: '', description: '', limits: {}, features: [] }
const SWIFTSHADER: AdapterView = { ...base, vendor: 'google', architecture: 'swiftshader', isFallbackAdapter: false }
const FALLBACK: AdapterView = { ...base, vendor: 'x', architecture: 'y', isFallbackAdapter: true }
const GPU: AdapterView = { ...base, vendor: 'nvidia', architecture: 'hopper', isFallbackAdapter: false }

/** An in-memory Storage. */
function memory(): Storage {
  const m = new Map<string, string>()
  return {
    getItem: k => m.get(k) ?? null,
    setItem: (k, v) => void m.set(k, v),
    removeItem: k => void m.delete(k),
    clear: () => m.clear(),
    key: i => [...m.keys()][i] ?? null,
    get length() {
      return m.size
    },
  }
}

describe('adapter defaults', () => {
  it('a software adapter gets smaller proposals and a reason; a GPU the registry defaults and none', () => {
    expect([SWIFTSHADER, FALLBACK, GPU, undefined].map(softwareAdapter)).toEqual([true, true, false, false])
    for (const model of ['gbdt', 'recsys']) expect(pageParamsFor(model, GPU)).toBe(familyOf(model).pageParams)
    const small = JSON.parse(pageParamsFor('gbdt', SWIFTSHADER))
    const usual = JSON.parse(familyOf('gbdt').pageParams)
    expect(small.num_round).toBeLessThan(usual.num_round)
    expect(small.max_depth).toBeLessThan(usual.max_depth)
    const rs = JSON.parse(pageParamsFor('recsys', SWIFTSHADER))
    expect(rs.batch_size).toBeGreaterThan(JSON.parse(familyOf('recsys').pageParams).batch_size)
    expect(Number(sweepMaxResourceFor('gbdt', SWIFTSHADER))).toBeLessThan(81)
    expect(sweepMaxResourceFor('gbdt', GPU)).toBe('')
    expect(softwareNote(SWIFTSHADER, 'run')).toMatch(/^Software adapter \(google\): WebGPU runs on the CPU here/)
    expect(softwareNote(GPU, 'sweep')).toBeUndefined()
  })

  it('minutes from the rate the last run on this adapter and model kept', () => {
    const s = memory()
    expect(readRate(SWIFTSHADER, 'gbdt', s)).toBeUndefined()
    expect(minutesText(100, 'round', 'gbdt', undefined)).toBe('')
    // A finished run: 10 rounds in 20 s on this adapter (its summary's label).
    keepRate(adapterLabel(SWIFTSHADER), 'gbdt', 10, 20, 'round', s)
    const rate = readRate(SWIFTSHADER, 'gbdt', s)
    expect(rate).toMatchObject({ perSecond: 0.5, unit: 'round' })
    expect(readRate(GPU, 'gbdt', s)).toBeUndefined()
    expect(readRate(SWIFTSHADER, 'recsys', s)).toBeUndefined()
    expect(minutesText(240, 'round', 'gbdt', rate)).toBe(
      "about 8 min (240 rounds at 0.50 rounds/s, measured on this adapter's last gbdt run; larger trees or tables take longer)",
    )
    expect(minutesText(20, 'round', 'gbdt', rate)).toMatch(/^about 40 s \(/)
    // Another unit than measured: no estimate rather than a wrong one.
    expect(minutesText(20, 'step', 'gbdt', rate)).toBe('')
    keepRate(adapterLabel(SWIFTSHADER), 'gbdt', 0, 20, 'round', s) // nothing done: the old rate stays
    expect(readRate(SWIFTSHADER, 'gbdt', s)?.perSecond).toBe(0.5)
  })

  it('recommender minutes: epochs × ⌈rows / batch⌉ steps at the kept steps/s, saying what it assumed', () => {
    const s = memory()
    keepRate(adapterLabel(GPU), 'recsys', 10, 20, 'step', s) // 0.5 steps/s
    const rate = readRate(GPU, 'recsys', s)
    // 40,000 rows in batches of 4096: ⌈40000 / 4096⌉ = 10 steps an epoch (validation rows ride along), 2 epochs.
    expect(stepsPerEpoch(40_000, 4096)).toBe(10)
    expect(stepsPerEpoch(40_000, 4096, 3)).toBe(4) // ⌈13 333 / 4096⌉ a rank
    const text = stepsMinutesText('recsys', { rows: 40_000, batch: 4096, epochs: 2, validFraction: 0.2 }, rate)
    expect(text).toBe(
      "about 40 s (20 steps at 0.50 steps/s, measured on this adapter's last recsys run; assumed 40000 live rows from the log's stats, batch size 4096: 10 steps an epoch × 2 epochs; the 20% validation rows ride in the same batches, masked; a filter makes it fewer)",
    )
    // The validation share does not change the count; the batch size does (8192: 5 steps an epoch).
    expect(
      stepsMinutesText('recsys', { rows: 40_000, batch: 4096, epochs: 2, validFraction: undefined }, rate),
    ).toMatch(/^about 40 s \(20 steps .*validation from another table/)
    expect(stepsMinutesText('recsys', { rows: 40_000, batch: 8192, epochs: 2, validFraction: 0 }, rate)).toMatch(
      /^about 20 s \(10 steps .*no validation rows/,
    )
    // No batch_size given: the recommender's default, said so.
    expect(
      stepsMinutesText('recsys', { rows: 40_000, batch: undefined, epochs: 1, validFraction: 0.2 }, rate),
    ).toContain("batch size 4096 (the recommender's default): 10 steps an epoch × 1 epoch;")
    // A log without stats: said so, no number. No rate (or a rate in rounds): nothing.
    expect(stepsMinutesText('recsys', { rows: undefined, batch: 4096, epochs: 2, validFraction: 0.2 }, rate)).toMatch(
      /^no estimate in minutes: the table's log has no row counts/,
    )
    expect(stepsMinutesText('recsys', { rows: 40_000, batch: 4096, epochs: 2, validFraction: 0.2 }, undefined)).toBe('')
    expect(
      stepsMinutesText(
        'recsys',
        { rows: 40_000, batch: 4096, epochs: 2, validFraction: 0.2 },
        { ...rate!, unit: 'round' },
      ),
    ).toBe('')
  })

  it("a sweep's batch size: fixed as is, searched at its smallest (an upper bound on steps), else the default", () => {
    expect(sweepBatch('recsys', { batch_size: 2048 })).toEqual({ batch: 2048 })
    expect(sweepBatch('recsys', { batch_size: { type: 'fixed', value: 512 } })).toEqual({ batch: 512 })
    expect(sweepBatch('recsys', { batch_size: { type: 'categorical', choices: [4096, 1024, 2048] } })).toEqual({
      batch: 1024,
      batchFrom: "the space's smallest: an upper bound",
    })
    expect(sweepBatch('recsys', { batch_size: { type: 'int', low: 256, high: 4096 } }).batch).toBe(256)
    expect(sweepBatch('recsys', {}, { batch_size: 8192 })).toEqual({ batch: 8192 })
    expect(sweepBatch('recsys', undefined)).toEqual({ batch: undefined })
  })
})
