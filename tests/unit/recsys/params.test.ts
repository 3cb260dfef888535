import { describe, expect, test } from 'vitest'
import { DEFAULT_RECSYS_PARAMS, parseRecsysParams } from '../../../src/models/recsys/params.ts'
import type { RecsysParams } from '../../../src/models/recsys/types.ts'

describe('parseRecsysParams', () => {
  test('defaults are the issue’s', () => {
    const p = parseRecsysParams({})
    expect(p).toMatchObject({
      epochs: 1,
      batch_size: 4096,
      embedding_dim: 16,
      layers: [256, 128],
      lr: 1e-3,
      optimizer: 'adam',
      embedding_optimizer: 'adagrad',
      embedding_lr: 0.05,
      weight_decay: 0,
    })
    expect(parseRecsysParams(undefined)).toEqual(p)
  })

  test('the acceptance command’s params parse', () => {
    const p = parseRecsysParams({ epochs: 1, batch_size: 1024, layers: [64, 32] })
    expect([p.epochs, p.batch_size, p.layers]).toEqual([1, 1024, [64, 32]])
  })

  test('embedding_lr defaults to lr for rowwise_adam, and stays when given', () => {
    expect(parseRecsysParams({ embedding_optimizer: 'rowwise_adam', lr: 0.004 }).embedding_lr).toBe(0.004)
    expect(parseRecsysParams({ embedding_optimizer: 'rowwise_adam', lr: 0.004, embedding_lr: 0.2 }).embedding_lr).toBe(
      0.2,
    )
  })

  test('buckets: one number or a per-column map', () => {
    expect(parseRecsysParams({ buckets: 1000 }).buckets).toBe(1000)
    expect(parseRecsysParams({ buckets: { user_id: 4096 } }).buckets).toEqual({ user_id: 4096 })
  })

  test.each([
    [{ epochs: 0 }, /epochs must be an integer in \[1/],
    [{ batch_size: 1.5 }, /batch_size must be an integer/],
    [{ batch_size: '1024' }, /batch_size must be an integer.*"1024"/],
    [{ embedding_dim: 0 }, /embedding_dim/],
    [{ layers: [64, 0] }, /layers must be an array of integers/],
    [{ layers: 64 }, /layers must be an array/],
    [{ lr: 0 }, /lr must be a finite number > 0, got 0/],
    [{ lr: Number.NaN }, /lr must be a finite number/],
    [{ embedding_lr: -1 }, /embedding_lr must be a finite number > 0/],
    [{ weight_decay: -0.1, optimizer: 'adamw' }, /weight_decay must be a finite number ≥ 0/],
    [{ weight_decay: 0.1 }, /weight_decay 0.1 needs optimizer 'adamw'/],
    [{ optimizer: 'sgd' }, /optimizer must be one of 'adam', 'adamw', got "sgd"/],
    [{ embedding_optimizer: 'adam' }, /embedding_optimizer must be one of 'adagrad', 'rowwise_adam'/],
    [{ schedule: 'linear' }, /schedule must be one of/],
    [{ buckets: 0 }, /buckets must be an integer/],
    [{ buckets: { user_id: -3 } }, /buckets\.user_id must be an integer/],
    [{ buckets: [10] }, /buckets must be a number or an object/],
    [{ log1p: 'dense_0' }, /log1p must be an array of column names/],
    [{ eval_every: 0 }, /eval_every/],
    [{ early_stopping_rounds: -1 }, /early_stopping_rounds/],
    [{ warmup_steps: 2.5 }, /warmup_steps/],
    [{ embeding_dim: 8 }, /unknown recsys parameter 'embeding_dim'/],
    [{ beta1: 0.5 }, /unknown recsys parameter 'beta1'/],
    [{ architecture: 'dlrm' }, /architecture must be one of 'mlp', 'dcn', got "dlrm"/],
    [{ architecture: 'dcn', cross_layers: 0 }, /cross_layers must be an integer in \[1, 64\], got 0/],
    [{ architecture: 'dcn', cross_rank: -1 }, /cross_rank must be an integer/],
    [{ cross_layers: 3 }, /cross_layers 3 needs architecture 'dcn' \(got 'mlp'\)/],
    [{ cross_rank: 4 }, /cross_rank 4 needs architecture 'dcn'/],
  ])('%j → RangeError naming the parameter', (raw, message) => {
    expect(() => parseRecsysParams(raw)).toThrow(RangeError)
    expect(() => parseRecsysParams(raw)).toThrow(message)
  })

  test("architecture: 'mlp' by default; 'dcn' takes cross_layers (2) and cross_rank (0 = full); parsed params parse again", () => {
    const mlp = parseRecsysParams({})
    expect([mlp.architecture, mlp.cross_layers, mlp.cross_rank]).toEqual(['mlp', 2, 0])
    // beta1, beta2 and eps are fixed, not settable: everything else parses back unchanged.
    const settable = ({ beta1: _1, beta2: _2, eps: _3, ...rest }: RecsysParams) => rest
    expect(parseRecsysParams(settable(mlp))).toEqual(mlp)
    const dcn = parseRecsysParams({ architecture: 'dcn', cross_layers: 3, cross_rank: 8 })
    expect([dcn.architecture, dcn.cross_layers, dcn.cross_rank]).toEqual(['dcn', 3, 8])
    expect(parseRecsysParams(settable(dcn))).toEqual(dcn)
  })

  test('non-object params are refused', () => {
    expect(() => parseRecsysParams([1])).toThrow(/must be a JSON object/)
    expect(() => parseRecsysParams(null)).toThrow(/must be a JSON object/)
  })

  test('the defaults object is not mutated by parsing', () => {
    parseRecsysParams({ layers: [4] }).layers.push(9)
    expect(DEFAULT_RECSYS_PARAMS.layers).toEqual([256, 128])
  })
})
