/**
 * The family registry (src/models/registry.ts): names the known families in its errors, tells a
 * model file's family from its contents, and every description is whole — its default space
 * parses with the family's own parameter check, its resource parameter is a parameter it has.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  DEFAULT_FAMILY,
  FAMILIES,
  FAMILY_NAMES,
  familiesWithFlag,
  familyOf,
  familyOfModel,
  quotedNames,
} from '../../src/models/registry.ts'
import { encodeModel } from '../../src/models/gbdt/model-file.ts'
import { MAGIC } from '../../src/models/recsys/checkpoint.ts'
import { paramCheck } from '../../src/sweep/model-params.ts'
import { planSweep } from '../../src/sweep/plan.ts'
import { defaultSpace } from '../../src/tune/defaults.ts'
import { parseSpace } from '../../src/tune/space.ts'

const XGB_JSON = readFileSync(resolve(import.meta.dirname, 'gbdt/fixtures/xgboost-1.7-binary.json'), 'utf8')

describe('familyOf', () => {
  it('names the known families when asked for another', () => {
    expect(FAMILY_NAMES).toEqual(expect.arrayContaining(['gbdt', 'recsys']))
    expect(() => familyOf('svm')).toThrow(RangeError)
    expect(() => familyOf('svm')).toThrow(`model svm: unknown model family (known: ${FAMILY_NAMES.join(', ')})`)
    expect(familyOf().name).toBe(DEFAULT_FAMILY)
    expect(familyOf('recsys').resource.param).toBe('epochs')
  })

  it('puts the names into messages: a planned sweep of an unknown model lists every family', () => {
    expect(quotedNames(['a', 'b', 'c'])).toBe("'a', 'b' or 'c'")
    const plan = planSweep({ model: 'svm', table: 'http://h/t', label: 'y', strategy: 'random' })
    expect(plan.errors[0]).toBe(`model: must be ${quotedNames(FAMILY_NAMES)}, got "svm"`)
    expect(familiesWithFlag('init-model').map(f => f.name)).toEqual(['gbdt'])
  })
})

describe('familyOfModel', () => {
  it('tells a recommender checkpoint by its magic, and XGBoost JSON text or UBJSON bytes as the GBDT', () => {
    const checkpoint = new Uint8Array(64)
    checkpoint.set(new TextEncoder().encode(MAGIC))
    expect(familyOfModel(checkpoint).name).toBe('recsys')
    expect(familyOfModel(XGB_JSON).name).toBe('gbdt')
    const ubj = encodeModel(JSON.parse(XGB_JSON), 'ubj')
    expect(ubj).toBeInstanceOf(Uint8Array)
    expect(familyOfModel(ubj).name).toBe('gbdt')
    // The magic as text is not a checkpoint (a recommender model file is bytes).
    expect(familyOfModel(`${MAGIC}{}`).name).toBe('gbdt')
    // A file shorter than the magic is not one either.
    expect(familyOfModel(new TextEncoder().encode('SNAP')).name).toBe('gbdt')
  })
})

describe('every description', () => {
  it.each(FAMILIES.map(f => [f.name, f] as const))(
    '%s: its default space parses with its own parameter check',
    (_, f) => {
      const space = parseSpace(defaultSpace(f), paramCheck(f.name))
      expect(Object.keys(space)).toContain(f.resource.param)
      expect(f.sweep.resources.minResource).toBeLessThanOrEqual(f.sweep.resources.maxResource)
      expect(f.modelFiles.length).toBeGreaterThan(0)
      expect(f.metrics[0]).toBe('auc')
      expect(() => JSON.parse(f.pageParams)).not.toThrow()
      // defaultSpace hands out a copy: editing it leaves the description alone.
      const copy = defaultSpace(f)
      copy[f.resource.param] = 1
      expect(defaultSpace(f)[f.resource.param]).not.toBe(1)
    },
  )
})
