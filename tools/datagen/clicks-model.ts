/**
 * The hidden model behind the `clicks` table. Legend: U = users (1e5), I = items (5e4),
 * D = latent dim (8), L = history length (0 … 10). logit = b + u·v + user/item bias + categorical
 * effects + dense terms + history terms; label ~ Bernoulli(sigmoid(logit)). The history terms
 * read the row's `history` column (the user's recently seen items): the mean affinity v_h·v of
 * the candidate item to the history items and the mean bias of the history items; they are
 * functions of the written features, so they count as learnable (ceiling.ts). Only the features and labels are written, so a trainer
 * has to recover the structure; the true probabilities give the Bayes-optimal AUC.
 */
import type { Rng } from '../../src/util/rng.ts'
import { ZipfSampler } from './zipf.ts'
import type { ColumnSpec } from './types.ts'

/** Latent dimension of the hidden user/item vectors and width of the `emb` column. */
export const EMB_DIM = 8
const USERS = 100_000
const ITEMS = 50_000
const DEVICES = [
  'mobile_android',
  'mobile_ios',
  'desktop_windows',
  'desktop_mac',
  'tablet_android',
  'tablet_ios',
  'smart_tv',
  'console',
  'desktop_linux',
  'other',
]
const COUNTRIES = 200
const FORMATS = 50
const CATEGORIES = 1_000
const PUBLISHERS = 10_000
/** Dense feature k is lognormal: exp(MU[k] + SIGMA[k]·z). */
const MU = [0, 1, 2, -1, 3, 0.5, 4, 1.5]
const SIGMA = [1, 0.5, 1.2, 0.8, 1.5, 0.3, 1, 0.7]
/** Standard deviations of the hidden user vectors and user biases (their means are 0). */
export const USER_VEC_SD = 0.6
export const USER_BIAS_SD = 0.3
/** Longest `history` list; lengths are uniform in 0 … HISTORY_MAX. */
export const HISTORY_MAX = 10
/** Fraction of rows whose `history` is null (no history known). */
const HISTORY_NULL_RATE = 0.05
/** Weights of the history terms: mean affinity v_h·v_item, and mean item bias of the history items. */
export const HISTORY_AFFINITY = 1
export const HISTORY_BIAS = 0.8
/** Fraction of nulls per dense feature (missing-value handling gets exercised). */
const NULL_RATE = [0, 0, 0.03, 0, 0, 0.1, 0, 0.01]

/** Columns of the clicks table, in schema order. */
export const CLICKS_COLUMNS: ColumnSpec[] = [
  { name: 'user_id', type: 'long', nullable: false },
  { name: 'item_id', type: 'long', nullable: false },
  { name: 'device', type: 'string', nullable: false },
  { name: 'country', type: 'string', nullable: false },
  { name: 'ad_format', type: 'string', nullable: false },
  { name: 'hour', type: 'integer', nullable: false },
  { name: 'category', type: 'integer', nullable: false },
  { name: 'publisher', type: 'integer', nullable: false },
  ...Array.from(
    { length: 8 },
    (_, k): ColumnSpec => ({ name: `dense_${k}`, type: k < 6 ? 'float' : 'double', nullable: true }),
  ),
  { name: 'emb', type: { type: 'array', elementType: 'float', containsNull: false }, nullable: false },
  { name: 'history', type: { type: 'array', elementType: 'long', containsNull: false }, nullable: true },
  { name: 'label', type: 'integer', nullable: false },
]

/** Columnar buffers the model draws rows into: row i at index i; `dense` and `emb` are n × 8, row-major. */
export interface ClickBuffers {
  user: Int32Array
  item: Int32Array
  device: Int32Array
  country: Int32Array
  format: Int32Array
  hour: Int32Array
  category: Int32Array
  publisher: Int32Array
  /** Dense feature values; NaN where missing. */
  dense: Float64Array
  emb: Float32Array
  /** Item ids of each row's `history` (null: no history known). */
  history: (Int32Array | null)[]
  /** Hidden logit of each row (intercept excluded). */
  logit: Float64Array
  /** The per-user part of `logit`: u·v + user bias (ceiling.ts removes it). */
  userLogit: Float64Array
  /** Variance of that part over a random user, given the row's item: σ_u²·|v|² + σ_b². */
  userVar: Float64Array
}

/** Empty buffers for `n` rows. */
export function clickBuffers(n: number): ClickBuffers {
  const int = () => new Int32Array(n)
  return {
    user: int(),
    item: int(),
    device: int(),
    country: int(),
    format: int(),
    hour: int(),
    category: int(),
    publisher: int(),
    dense: new Float64Array(n * 8),
    emb: new Float32Array(n * EMB_DIM),
    history: new Array<Int32Array | null>(n).fill(null),
    logit: new Float64Array(n),
    userLogit: new Float64Array(n),
    userVar: new Float64Array(n),
  }
}

/** The hidden parameters, drawn once from the seed. */
export class ClicksModel {
  readonly users: ZipfSampler
  readonly items: ZipfSampler
  readonly devices: ZipfSampler
  readonly countries: ZipfSampler
  readonly formats: ZipfSampler
  readonly publishers: ZipfSampler
  private readonly userVec = new Float32Array(USERS * EMB_DIM)
  private readonly itemVec = new Float32Array(ITEMS * EMB_DIM)
  private readonly userBias = new Float32Array(USERS)
  private readonly userActivity = new Float32Array(USERS)
  private readonly itemBias = new Float32Array(ITEMS)
  private readonly itemCategory = new Int32Array(ITEMS)
  private readonly effects: Record<'device' | 'country' | 'format' | 'hour' | 'category' | 'publisher', Float32Array>

  /** Draws all hidden parameters from `rng`. */
  constructor(rng: Rng) {
    this.users = new ZipfSampler(USERS, 0.8, rng)
    this.items = new ZipfSampler(ITEMS, 1.0, rng)
    this.devices = new ZipfSampler(DEVICES.length, 1.0, rng)
    this.countries = new ZipfSampler(COUNTRIES, 1.2, rng)
    this.formats = new ZipfSampler(FORMATS, 1.0, rng)
    this.publishers = new ZipfSampler(PUBLISHERS, 1.1, rng)
    fillNormal(this.userVec, rng, USER_VEC_SD)
    fillNormal(this.itemVec, rng, 0.6)
    fillNormal(this.userBias, rng, USER_BIAS_SD)
    fillNormal(this.itemBias, rng, 0.5)
    fillNormal(this.userActivity, rng, 1)
    for (let i = 0; i < ITEMS; i++) this.itemCategory[i] = rng.int(CATEGORIES)
    this.effects = {
      device: normals(DEVICES.length, rng, 0.3),
      country: normals(COUNTRIES, rng, 0.2),
      format: normals(FORMATS, rng, 0.4),
      category: normals(CATEGORIES, rng, 0.4),
      publisher: normals(PUBLISHERS, rng, 0.3),
      hour: Float32Array.from({ length: 24 }, (_, h) => 0.3 * Math.sin((2 * Math.PI * (h - 9)) / 24)),
    }
  }

  /** Draws row `i` into `b`: its features and its hidden logit (intercept excluded). */
  drawRow(rng: Rng, b: ClickBuffers, i: number): void {
    const user = this.users.sample(rng)
    const item = this.items.sample(rng)
    b.user[i] = user
    b.item[i] = item
    b.device[i] = this.devices.sample(rng)
    b.country[i] = this.countries.sample(rng)
    b.format[i] = this.formats.sample(rng)
    b.hour[i] = rng.int(24)
    b.category[i] = this.itemCategory[item]
    b.publisher[i] = this.publishers.sample(rng)
    const z = this.denseLatents(user, rng)
    const dense = b.dense.subarray(i * 8, i * 8 + 8)
    for (let k = 0; k < 8; k++) dense[k] = rng.next() < NULL_RATE[k] ? NaN : Math.exp(MU[k] + SIGMA[k] * z[k])
    for (let d = 0; d < EMB_DIM; d++) b.emb[i * EMB_DIM + d] = this.itemVec[item * EMB_DIM + d] + 0.25 * rng.normal()
    const history = rng.next() < HISTORY_NULL_RATE ? null : this.drawHistory(rng)
    b.history[i] = history
    b.userLogit[i] = this.interaction(user, item) + this.userBias[user]
    b.userVar[i] = USER_VEC_SD ** 2 * this.itemNorm2(item) + USER_BIAS_SD ** 2
    b.logit[i] =
      b.userLogit[i] +
      this.itemBias[item] +
      this.categoricalTerm(b, i) +
      denseTerm(z, dense) +
      this.historyTerm(item, history)
  }

  /** 0 … HISTORY_MAX recently seen items, drawn as the candidates are (Zipf over items). */
  private drawHistory(rng: Rng): Int32Array {
    return Int32Array.from({ length: rng.int(HISTORY_MAX + 1) }, () => this.items.sample(rng))
  }

  /** Mean over the history of HISTORY_AFFINITY·v_h·v_item + HISTORY_BIAS·bias_h; 0 for an empty or null history. */
  private historyTerm(item: number, history: Int32Array | null): number {
    if (!history || history.length === 0) return 0
    let t = 0
    for (const h of history) {
      let dot = 0
      for (let d = 0; d < EMB_DIM; d++) dot += this.itemVec[h * EMB_DIM + d] * this.itemVec[item * EMB_DIM + d]
      t += HISTORY_AFFINITY * dot + HISTORY_BIAS * this.itemBias[h]
    }
    return t / history.length
  }

  /** Column value helpers: names as written to the table. */
  deviceName(i: number): string {
    return DEVICES[i]
  }
  /** Two-letter country code of country index i (AA, AB, …). */
  countryCode(i: number): string {
    return String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26))
  }
  formatName(i: number): string {
    return `fmt_${String(i).padStart(2, '0')}`
  }

  private denseLatents(user: number, rng: Rng): number[] {
    const z = Array.from({ length: 8 }, () => rng.normal())
    // dense_0 tracks the user's (hidden) activity level, so it carries per-user signal.
    z[0] = 0.7 * this.userActivity[user] + 0.714 * z[0]
    return z
  }

  private interaction(user: number, item: number): number {
    let dot = 0
    for (let d = 0; d < EMB_DIM; d++) dot += this.userVec[user * EMB_DIM + d] * this.itemVec[item * EMB_DIM + d]
    return dot
  }

  private itemNorm2(item: number): number {
    let s = 0
    for (let d = 0; d < EMB_DIM; d++) s += this.itemVec[item * EMB_DIM + d] ** 2
    return s
  }

  private categoricalTerm(b: ClickBuffers, i: number): number {
    const e = this.effects
    return (
      e.device[b.device[i]] +
      e.country[b.country[i]] +
      e.format[b.format[i]] +
      e.hour[b.hour[i]] +
      e.category[b.category[i]] +
      e.publisher[b.publisher[i]]
    )
  }
}

/** Dense contribution: linear, threshold and quadratic terms of the log-features; missing → 0. */
function denseTerm(z: number[], dense: Float64Array): number {
  const has = (k: number) => !Number.isNaN(dense[k])
  let t = 0
  if (has(0)) t += 0.4 * z[0]
  if (has(1)) t -= 0.3 * z[1]
  if (has(2)) t += z[2] > 1 ? 0.5 : 0
  if (has(3)) t += 0.2 * (z[3] * z[3] - 1)
  if (has(5)) t += 0.25 * z[5] * (z[0] > 0 ? 1 : -1)
  if (has(6)) t += 0.15 * z[6]
  return t
}

function fillNormal(out: Float32Array, rng: Rng, sd: number): void {
  for (let i = 0; i < out.length; i++) out[i] = sd * rng.normal()
}

function normals(n: number, rng: Rng, sd: number): Float32Array {
  const out = new Float32Array(n)
  fillNormal(out, rng, sd)
  return out
}
