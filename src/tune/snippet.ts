/**
 * The "continue at scale" snippet of a sweep's best trial: the same configuration against the
 * same Delta table version, as Python a data scientist pastes into a cluster notebook. GBDT:
 * XGBoost on Spark (xgboost.spark.SparkXGBClassifier, reading the table with `versionAsOf`);
 * recsys: PyTorch (embeddings + MLP, torch-module.ts) over the table read with the `deltalake`
 * package, featurized as snaptrain does and warm-started from an exported model when one is beside it.
 */
import type { SweepState } from './types.ts'
import { TORCH_MODULE } from './torch-module.ts'

/** Pinned facts of the best trial's data (from its manifest when it has one). */
export interface SnippetTable {
  url: string
  version: number | null
  features: Array<{ name: string; categorical: boolean }>
}

/** XGBoost names → the sklearn-style names SparkXGBClassifier takes. */
const SPARK_NAMES: Record<string, string> = {
  num_round: 'n_estimators',
  eta: 'learning_rate',
  alpha: 'reg_alpha',
  lambda: 'reg_lambda',
  gamma: 'gamma',
  seed: 'random_state',
}
/** Parameters with no meaning on Spark (objective and metric are set by the classifier). */
const SKIP = new Set([
  'objective',
  'eval_metric',
  'early_stopping_rounds',
  'nthread',
  'n_jobs',
  'verbosity',
  'tree_method',
  'device',
])

/** The snippet for `state`'s best trial; throws when no trial finished. */
export function continueSnippet(state: SweepState, table: SnippetTable): string {
  if (!state.best) throw new Error(`sweep ${state.id}: no finished trial yet, nothing to continue`)
  return state.config.model === 'gbdt' ? sparkSnippet(state, table) : torchSnippet(state, table)
}

function py(v: unknown): string {
  if (v === true) return 'True'
  if (v === false) return 'False'
  if (v === null || v === undefined) return 'None'
  if (Array.isArray(v)) return `[${v.map(py).join(', ')}]`
  if (typeof v === 'string') return JSON.stringify(v)
  return String(v)
}

function header(state: SweepState, t: SnippetTable, what: string): string[] {
  const b = state.best!
  return [
    `# Continue at scale: sweep ${state.id}, best trial ${b.trial} (validation ${state.config.metric ?? 'auc'} ${b.metric.toFixed(5)}),`,
    `# ${what}, on the same Delta table version.`,
    `TABLE = ${py(t.url)}`,
    `VERSION = ${t.version ?? 'None  # latest when the sweep ran'}`,
    `LABEL = ${py(state.config.label)}`,
  ]
}

function sparkSnippet(state: SweepState, t: SnippetTable): string {
  const params = Object.entries({ ...state.config.fixed, ...state.best!.params })
    .filter(([k]) => !SKIP.has(k))
    .map(([k, v]) => `    ${SPARK_NAMES[k] ?? k}=${py(v)},`)
  const cats = t.features.filter(f => f.categorical).map(f => f.name)
  const nums = t.features.filter(f => !f.categorical).map(f => f.name)
  return [
    ...header(state, t, 'XGBoost on Spark with the same parameters'),
    'from pyspark.sql import SparkSession, functions as F',
    'from pyspark.ml.feature import StringIndexer',
    'from xgboost.spark import SparkXGBClassifier',
    '',
    'spark = SparkSession.builder.getOrCreate()',
    'reader = spark.read.format("delta")',
    'if VERSION is not None:',
    '    reader = reader.option("versionAsOf", VERSION)',
    'df = reader.load(TABLE)',
    ...(state.config.filter ? [`df = df.where(${py(state.config.filter)})`] : []),
    `CATEGORICAL = ${py(cats)}`,
    `NUMERIC = ${py(nums)}`,
    '# String features as category codes (unseen values kept as their own code), as snaptrain does.',
    'for c in CATEGORICAL:',
    '    df = StringIndexer(inputCol=c, outputCol=c + "_code", handleInvalid="keep").fit(df).transform(df)',
    'FEATURES = NUMERIC + [c + "_code" for c in CATEGORICAL]',
    ...splitLines(state, t),
    '',
    'clf = SparkXGBClassifier(',
    '    features_col=FEATURES,',
    '    label_col=LABEL,',
    '    validation_indicator_col="is_valid",',
    '    eval_metric="auc",',
    '    tree_method="hist",',
    ...params,
    '    num_workers=spark.sparkContext.defaultParallelism,',
    ')',
    'model = clf.fit(df)',
    'model.get_booster().save_model("model.json")',
    '',
  ].join('\n')
}

/**
 * The sweep's validation rows in Spark: the seeded split by row key (src/data/row-key.ts, README
 * "The validation split and row identity") as a Python UDF over the key columns, so the snippet
 * validates on the rows snaptrain held out.
 */
function splitLines(state: SweepState, t: SnippetTable): string[] {
  const key = state.config.splitKey ?? [state.config.label, ...t.features.map(f => f.name)].sort()
  return [
    "# snaptrain's validation rows: a seeded hash of each row's key-column values (pip install mmh3).",
    'import datetime, decimal, math, struct, mmh3',
    `KEY, SEED, FRACTION = ${py(key)}, ${state.config.seed ?? 0}, ${state.config.validFraction ?? 0.2}`,
    'def _hash(x):',
    '    if x is None: return 0xFFFFFFFF',
    '    if isinstance(x, str): x = x.encode()',
    '    if isinstance(x, (bytes, bytearray)): return mmh3.hash(bytes(x), 0, signed=False)',
    '    if isinstance(x, datetime.datetime): x = x.timestamp()',
    '    elif isinstance(x, datetime.date): x = (x - datetime.date(1970, 1, 1)).days',
    '    if isinstance(x, decimal.Decimal): x = float(x)',
    '    if isinstance(x, float) and math.isnan(x): return mmh3.hash(struct.pack("<Q", 0x7FF8000000000000), 0, signed=False)',
    '    if isinstance(x, float) and not (x.is_integer() and abs(x) < 2**53): return mmh3.hash(struct.pack("<d", x), 0, signed=False)',
    '    return mmh3.hash(struct.pack("<q", int(x)), 0, signed=False)',
    '@F.udf("boolean")',
    'def is_valid(*values):',
    '    k = mmh3.hash(b"".join(struct.pack("<I", _hash(v)) for v in values), 0, signed=False)',
    '    return mmh3.hash(struct.pack("<qq", SEED, k), 0x9747B28C, signed=False) / 2**32 < FRACTION',
    'df = df.withColumn("is_valid", is_valid(*[F.col(c) for c in KEY]))',
  ]
}

function torchSnippet(state: SweepState, t: SnippetTable): string {
  const p = {
    epochs: 1,
    lr: 1e-3,
    embedding_dim: 16,
    layers: [256, 128],
    batch_size: 4096,
    weight_decay: 0,
    architecture: 'mlp',
    cross_layers: 2,
    cross_rank: 0,
    ...state.config.fixed,
    ...state.best!.params,
  }
  return [
    ...header(state, t, 'PyTorch (embeddings + MLP) with the same parameters'),
    "# Warm start: with features.json and model.safetensors (the sweep model's export) beside this",
    '# script, training continues from their weights and featurizes exactly as they were trained.',
    'FEATURES, INIT = "features.json", "model.safetensors"',
    '',
    TORCH_MODULE,
    'from deltalake import DeltaTable',
    '',
    'dt = DeltaTable(TABLE, version=VERSION) if VERSION is not None else DeltaTable(TABLE)',
    `df = dt.to_pandas()${
      state.config.filter
        ? `.query(${py(
            state.config.filter
              .replace(/\bAND\b/g, 'and')
              .replace(/\bOR\b/g, 'or')
              .replace(/([^<>!=])=([^=])/g, '$1==$2'),
          )})`
        : ''
    }`,
    `SPARSE = ${py(t.features.filter(f => f.categorical).map(f => f.name))}`,
    `DENSE = ${py(t.features.filter(f => !f.categorical).map(f => f.name))}`,
    `P = dict(epochs=${py(p.epochs)}, lr=${py(p.lr)}, embedding_dim=${py(p.embedding_dim)}, layers=${py(p.layers)}, batch_size=${py(p.batch_size)}, weight_decay=${py(p.weight_decay)},`,
    `         architecture=${py(p.architecture)}, cross_layers=${py(p.cross_layers)}, cross_rank=${py(p.cross_rank)})`,
    'warm = os.path.exists(FEATURES) and os.path.exists(INIT)',
    'F = json.load(open(FEATURES)) if warm else features_from(df, SPARSE, DENSE, LABEL, P)',
    'X = featurize(df, F)',
    'y = torch.tensor(df[LABEL].to_numpy(), dtype=torch.float32)',
    'model = Model(F)',
    'if warm:',
    '    model.load_state_dict(read_safetensors(INIT))',
    'print("initial loss", evaluate(model, X, y))',
    'losses = fit(model, X, y, P["epochs"], P["lr"], P["batch_size"], P["weight_decay"])',
    'print("final loss", evaluate(model, X, y))',
    'torch.save(model.state_dict(), "model.pt")',
    '',
  ].join('\n')
}

/**
 * Table, version and features of the best trial (its manifest: the run's, where a feature is
 * categorical when the manifest's `categorical` names it; a sweep stored before trials carried
 * the run manifest has `categorical` on each feature), else the config's.
 */
export function snippetTable(s: SweepState, manifest: unknown): SnippetTable {
  const m = manifest as
    | {
        table?: { url?: string; path?: string; version?: number }
        features?: Array<{ name: string; categorical?: boolean }>
        categorical?: Record<string, unknown>
      }
    | undefined
  const coded = m?.categorical ?? {}
  return {
    url: s.config.tablePath ?? m?.table?.path ?? m?.table?.url ?? s.config.table,
    version: m?.table?.version ?? s.config.version ?? null,
    features:
      m?.features?.map(f => ({ name: f.name, categorical: f.categorical ?? f.name in coded })) ??
      (s.config.features ?? []).map(name => ({ name, categorical: false })),
  }
}
