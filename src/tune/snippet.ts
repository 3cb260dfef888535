/**
 * The "continue at scale" snippet of a sweep's best trial: the same configuration against the
 * same Delta table version, as Python a data scientist pastes into a cluster notebook. GBDT:
 * XGBoost on Spark (xgboost.spark.SparkXGBClassifier, reading the table with `versionAsOf`);
 * recsys: PyTorch (embeddings + MLP) over the table read with the `deltalake` package.
 */
import type { SweepState } from './types.ts'

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
    `df = df.withColumn("is_valid", F.rand(seed=${state.config.seed ?? 0}) < ${state.config.validFraction ?? 0.2})`,
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

function torchSnippet(state: SweepState, t: SnippetTable): string {
  const p = {
    epochs: 1,
    lr: 1e-3,
    embedding_dim: 16,
    layers: [256, 128],
    batch_size: 4096,
    weight_decay: 0,
    ...state.config.fixed,
    ...state.best!.params,
  }
  return [
    ...header(state, t, 'PyTorch (embeddings + MLP) with the same parameters'),
    'import numpy as np, torch, torch.nn as nn',
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
    `P = dict(epochs=${py(p.epochs)}, lr=${py(p.lr)}, embedding_dim=${py(p.embedding_dim)}, layers=${py(p.layers)}, batch_size=${py(p.batch_size)}, weight_decay=${py(p.weight_decay)})`,
    'codes = [df[c].astype("category").cat.codes.to_numpy() + 1 for c in SPARSE]',
    'x_s = torch.tensor(np.stack(codes, 1), dtype=torch.long) if codes else torch.zeros((len(df), 0), dtype=torch.long)',
    'dense = df[DENSE].astype("float32").fillna(0.0)',
    'x_d = torch.tensor(((dense - dense.mean()) / (dense.std() + 1e-6)).to_numpy(), dtype=torch.float32)',
    'y = torch.tensor(df[LABEL].to_numpy(), dtype=torch.float32)',
    '',
    'class Model(nn.Module):',
    '    def __init__(self):',
    '        super().__init__()',
    '        self.emb = nn.ModuleList(nn.Embedding(int(x_s[:, i].max()) + 1, P["embedding_dim"]) for i in range(x_s.shape[1]))',
    '        width, layers = len(SPARSE) * P["embedding_dim"] + x_d.shape[1], []',
    '        for h in P["layers"]:',
    '            layers += [nn.Linear(width, h), nn.ReLU()]',
    '            width = h',
    '        self.mlp = nn.Sequential(*layers, nn.Linear(width, 1))',
    '    def forward(self, s, d):',
    '        return self.mlp(torch.cat([e(s[:, i]) for i, e in enumerate(self.emb)] + [d], 1)).squeeze(1)',
    '',
    'model = Model()',
    'opt = torch.optim.AdamW(model.parameters(), lr=P["lr"], weight_decay=P["weight_decay"])',
    'for epoch in range(P["epochs"]):',
    '    for idx in torch.randperm(len(y)).split(P["batch_size"]):',
    '        loss = nn.functional.binary_cross_entropy_with_logits(model(x_s[idx], x_d[idx]), y[idx])',
    '        opt.zero_grad(); loss.backward(); opt.step()',
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
