/**
 * Multiclass models (issue 29): the XGBoost 1.7.4 file form (num_class, softmax_multiclass_param,
 * tree_info, num_trees, the label dictionary attribute) written and read back in JSON and UBJSON,
 * files XGBoost could not mean refused naming the field, K margins per row (tree t adds to class
 * t % K), softmax / argmax predictions, SHAP per class in XGBoost's (N, K, F + 1) layout,
 * importance over every class's trees, and preds.csv's multiclass columns.
 */
import { describe, expect, it } from 'vitest'
import { fromXGBoostJson, toXGBoostJson, toXGBoostJsonString } from '../../../src/models/gbdt/xgboost-json.ts'
import { decodeModel, encodeModel } from '../../../src/models/gbdt/model-file.ts'
import { LABEL_VALUES_ATTRIBUTE, labelValuesOf } from '../../../src/models/gbdt/model-attributes.ts'
import { argmaxRows, predict, predictMargins } from '../../../src/models/gbdt/predict.ts'
import { classTrees, topFeatures, treeShap } from '../../../src/models/gbdt/shap.ts'
import { featureImportance } from '../../../src/models/gbdt/importance.ts'
import { classPredictions } from '../../../src/models/gbdt/predict-run.ts'
import { predsCsv } from '../../../src/cli/predict.ts'
import { DEFAULT_PARAMS } from '../../../src/models/gbdt/params.ts'
import type { Booster } from '../../../src/models/gbdt/types.ts'
import { Rng } from '../../../src/util/rng.ts'
import { shapRows, toColumns } from './shap-fixture.ts'
import { multiclassBooster } from './multiclass-fixture.ts'

type Json = Record<string, any>

/** The booster of class k alone: one output per row over the class's trees. */
function classBooster(b: Booster, k: number): Booster {
  const { numClass: _, labelValues: __, ...rest } = b
  return {
    ...rest,
    params: { ...b.params, objective: 'reg:squarederror', num_class: 0 },
    trees: classTrees(b.trees, b.numClass!, k),
  }
}

describe('multiclass model file', () => {
  const b = multiclassBooster(new Rng(1), 3, 4, 5, 2, 'multi:softprob', ['cat', 'dog', 'émeu'])

  it('writes XGBoost 1.7.4 form: num_class, objective config, tree_info, num_trees, label values', () => {
    const j = toXGBoostJson(b) as Json
    const L = j.learner
    expect(L.learner_model_param.num_class).toBe('3')
    expect(L.objective).toEqual({ name: 'multi:softprob', softmax_multiclass_param: { num_class: '3' } })
    expect(L.gradient_booster.model.tree_info).toEqual([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2])
    expect(L.gradient_booster.model.gbtree_model_param).toEqual({ num_parallel_tree: '1', num_trees: '12' })
    expect(L.gradient_booster.model.iteration_indptr).toEqual([0, 3, 6, 9, 12])
    expect(JSON.parse(L.attributes[LABEL_VALUES_ATTRIBUTE])).toEqual(['cat', 'dog', 'émeu'])
    const binary = toXGBoostJson({ ...classBooster(b, 0), params: { ...DEFAULT_PARAMS } }) as Json
    expect(binary.learner.learner_model_param.num_class).toBe('0')
    expect(binary.learner.attributes[LABEL_VALUES_ATTRIBUTE]).toBeUndefined()
  })

  it.each(['json', 'ubj'] as const)('reads back the same model from %s', format => {
    const again = fromXGBoostJson(decodeModel(encodeModel(toXGBoostJson(b), format), format))
    expect(again.numClass).toBe(3)
    expect(again.labelValues).toEqual(['cat', 'dog', 'émeu'])
    expect(again.params.objective).toBe('multi:softprob')
    expect(again.params.num_class).toBe(3)
    expect(again.params.num_round).toBe(4)
    expect(again.bestIteration).toBe(3)
    expect(toXGBoostJsonString(again)).toBe(toXGBoostJsonString(b))
    const softmax = fromXGBoostJson(toXGBoostJsonString({ ...b, params: { ...b.params, objective: 'multi:softmax' } }))
    expect(softmax.params.objective).toBe('multi:softmax')
  })

  it('refuses files it cannot read as XGBoost means them, naming the field', () => {
    const edit = (f: (L: Json) => void): string => {
      const j = JSON.parse(toXGBoostJsonString(b)) as Json
      f(j.learner)
      return JSON.stringify(j)
    }
    expect(() =>
      fromXGBoostJson(edit(L => (L.gradient_booster.model.gbtree_model_param.num_parallel_tree = '2'))),
    ).toThrow(/num_parallel_tree 2/)
    expect(() =>
      fromXGBoostJson(edit(L => (L.gradient_booster.model.tree_info = [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2]))),
    ).toThrow(/tree_info\[1\] is 0, expected 1: only round-major/)
    expect(() => fromXGBoostJson(edit(L => (L.objective = { name: 'binary:logistic' })))).toThrow(
      /num_class 3 with objective binary:logistic/,
    )
    expect(() => fromXGBoostJson(edit(L => (L.learner_model_param.num_class = '0')))).toThrow(
      /multi:softprob with num_class 0/,
    )
    expect(() =>
      fromXGBoostJson(
        edit(L => {
          L.gradient_booster.model.trees.pop()
          L.gradient_booster.model.tree_info.pop()
          L.gradient_booster.model.gbtree_model_param.num_trees = '11'
        }),
      ),
    ).toThrow(/11 trees are not whole rounds of 3/)
    expect(() => fromXGBoostJson(edit(L => (L.gradient_booster.model.gbtree_model_param.num_trees = '9')))).toThrow(
      /num_trees is 9, the model has 12 trees/,
    )
    expect(() => fromXGBoostJson(edit(L => (L.attributes[LABEL_VALUES_ATTRIBUTE] = '["a","b"]')))).toThrow(
      /2 label values for num_class 3/,
    )
    expect(() => labelValuesOf({ learner: { attributes: { [LABEL_VALUES_ATTRIBUTE]: '["a","a"]' } } })).toThrow(
      /listed twice/,
    )
    expect(() => toXGBoostJson({ ...b, trees: b.trees.slice(1) })).toThrow(/11 trees are not whole rounds of 3/)
  })
})

describe('multiclass predict and SHAP', () => {
  const rng = new Rng(2)
  const K = 4,
    F = 6,
    rows = 150
  const b = multiclassBooster(rng, K, 5, F, 2)
  const cols = toColumns(shapRows(rng, rows, F, 2), rows, F)

  it('margins N × K: class k is base + its trees (t % K = k) in tree order', () => {
    const m = predictMargins(b, cols)
    expect(m).toHaveLength(rows * K)
    for (let k = 0; k < K; k++) {
      const alone = predictMargins(classBooster(b, k), cols)
      for (let i = 0; i < rows; i++) expect(m[i * K + k]).toBe(alone[i])
    }
    // nTrees counts trees: 2 rounds' worth.
    const two = predictMargins(b, cols, 2 * K)
    const twoRounds = predictMargins({ ...b, trees: b.trees.slice(0, 2 * K) }, cols)
    expect(Array.from(two)).toEqual(Array.from(twoRounds))
    // Rows' own base margins are N × K.
    const start = Float32Array.from({ length: rows * K }, (_, j) => j % 7)
    const shifted = predictMargins(b, cols, undefined, start)
    for (let j = 0; j < rows * K; j++) expect(shifted[j]).toBeCloseTo(m[j] - 0.5 + (j % 7), 4)
    expect(() => predictMargins(b, cols, undefined, new Float32Array(rows))).toThrow(/× 4 outputs/)
  })

  it('softprob: rows of probabilities summing to 1 ordered as the margins; softmax: the argmax class', () => {
    const m = predictMargins(b, cols)
    const p = predict(b, cols)
    expect(p).toHaveLength(rows * K)
    for (let i = 0; i < rows; i++) {
      let s = 0
      for (let k = 0; k < K; k++) s += p[i * K + k]
      expect(s).toBeCloseTo(1, 5)
      for (let k = 1; k < K; k++)
        expect(Math.sign(p[i * K + k] - p[i * K])).toBe(Math.sign(Math.fround(m[i * K + k] - m[i * K])))
    }
    const cls = predict({ ...b, params: { ...b.params, objective: 'multi:softmax' } }, cols)
    expect(Array.from(cls)).toEqual(Array.from(argmaxRows(m, K)))
    expect(Array.from(argmaxRows(Float32Array.of(1, 3, 3, 0, 0, 0), 3))).toEqual([1, 0])
    const out = classPredictions({ ...b, labelValues: ['a', 'b', 'c', 'd'] }, m)
    expect(out.classes).toBe(K)
    expect(Array.from(out.predictions)).toEqual(Array.from(argmaxRows(m, K)))
    expect(Array.from(out.probabilities!)).toEqual(Array.from(p))
    expect(out.labelValues).toEqual(['a', 'b', 'c', 'd'])
  })

  it("SHAP (N, K, F + 1): class k's values are the class trees' alone; each row's class sums to its margin", () => {
    const phi = treeShap(b, cols)
    const W = F + 1
    expect(phi).toHaveLength(rows * K * W)
    const m = predictMargins(b, cols)
    for (let k = 0; k < K; k++) {
      const alone = treeShap(classBooster(b, k), cols)
      for (let i = 0; i < rows; i++) {
        expect(Array.from(phi.subarray((i * K + k) * W, (i * K + k + 1) * W))).toEqual(
          Array.from(alone.subarray(i * W, (i + 1) * W)),
        )
        let s = 0
        for (let j = 0; j < W; j++) s += phi[(i * K + k) * W + j]
        expect(Math.abs(s - m[i * K + k])).toBeLessThan(1e-4)
      }
    }
    // Mean |φ| summed over the classes.
    const top = topFeatures(phi, b.featureNames, F, K)
    for (const { feature, mean_abs_shap } of top) {
      const f = b.featureNames.indexOf(feature)
      let s = 0
      for (let r = 0; r < rows * K; r++) s += Math.abs(phi[r * W + f])
      expect(mean_abs_shap).toBeCloseTo(s / rows, 6)
    }
  })

  it('importance counts the splits of every class tree (get_score)', () => {
    let splits = 0,
      gain = 0
    for (const t of b.trees)
      for (let n = 0; n < t.left.length; n++)
        if (t.left[n] >= 0 && t.splitIndex[n] === 3) {
          splits++
          gain += t.lossChange[n]
        }
    expect(featureImportance(b, 'weight').f3).toBe(splits)
    expect(featureImportance(b, 'total_gain').f3).toBeCloseTo(gain, 5)
  })

  it('preds.csv: margin_<k>, prob_<k>, prediction (the label value), SHAP per class suffixed _<k>', () => {
    const margins = Float32Array.of(1, 2, 0.5, -1, 0, 3)
    const probs = Float32Array.of(0.25, 0.5, 0.25, 0.125, 0.125, 0.75)
    const csv = predsCsv(margins, Float32Array.of(1, 2), undefined, 'margin', {
      classes: 3,
      probabilities: probs,
      labelValues: ['x', 'y,z', 'w'],
    })
    expect(csv.trim().split('\n')).toEqual([
      'margin_0,margin_1,margin_2,prob_0,prob_1,prob_2,prediction',
      '1,2,0.5,0.25,0.5,0.25,"y,z"',
      '-1,0,3,0.125,0.125,0.75,w',
    ])
    const withShap = predsCsv(
      margins.subarray(0, 2),
      Float32Array.of(1),
      { featureNames: ['a'], values: Float32Array.of(0.5, 0.5, 1, 1) },
      'margin',
      { classes: 2, probabilities: Float32Array.of(0.25, 0.75) },
    )
    expect(withShap.trim().split('\n')).toEqual([
      'margin_0,margin_1,prob_0,prob_1,prediction,shap_a_0,shap_bias_0,shap_a_1,shap_bias_1',
      '1,2,0.25,0.75,1,0.5,0.5,1,1',
    ])
  })
})
