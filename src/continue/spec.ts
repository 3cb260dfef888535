/**
 * The continue bundle's description, `continue.json`: everything another engine needs to go on
 * training the same model on the same data — the pinned table, the label, the features in the
 * model's order with their encodings, the validation split, the parameters, the seed and how far
 * training got. The jobs generated into the bundle (XGBoost on Dask and on Spark, PyTorch DDP)
 * read only this file, the model files beside it and the shared Python runtime
 * `snaptrain_continue.py`; nothing else of snaptrain is needed on the engine's side except
 * `snaptrain scan` where the engine has no Delta reader (scan `--format npy`, one shard a worker).
 *
 * Bundle folder (`continue/` beside a run's model, or a download of the page):
 *   continue.json              this description
 *   snaptrain_continue.py      shared runtime: shard reader, value and row-key hashes, the split, encodings
 *   gbdt:   model.json         the model to continue (XGBoost JSON; `xgb_model`)
 *           xgboost_dask.py    XGBoost on Dask (xgboost.dask, LocalCluster or a scheduler address)
 *           xgboost_spark.py   XGBoost on Spark (SparkXGBClassifier/Regressor, Delta `versionAsOf`)
 *   recsys: features.json, model.safetensors, optimizer.safetensors
 *           torch_ddp.py       PyTorch DistributedDataParallel (torchrun, gloo or nccl)
 */

/** How one feature reaches the model, in the model's input order. */
export interface ContinueFeature {
  name: string
  /** The Delta type of the table column (schema's type string, or 'array<…>' for lists). */
  delta_type: string
  /**
   * GBDT: 'numeric' (value as float32, null → missing) or 'categorical' (code = index in
   * `dictionary`; a value not in it and null → missing). Recommender: 'sparse' (hashed id),
   * 'dense' (normalised number), 'bag' (hashed item list, pooled), 'list' (fixed-length floats).
   */
  kind: 'numeric' | 'categorical' | 'sparse' | 'dense' | 'bag' | 'list'
  /** GBDT categorical: the model's sorted dictionary; code i is dictionary[i]. */
  dictionary?: string[]
}

/** The validation rows: what another engine recomputes to hold out the same rows. */
export type ContinueValidation =
  /** Seeded fraction by row key (src/data/row-key.ts; README "The validation split and row identity"). */
  | { kind: 'fraction'; fraction: number; seed: number; key: string[]; rows: number }
  /** A second table (its own pinned version) holds the validation rows. */
  | { kind: 'table'; table: { url: string; path?: string; version: number } }
  | { kind: 'none' }

/** continue.json. */
export interface ContinueSpec {
  kind: 'snaptrain-continue'
  format: 1
  snaptrain_version: string
  /** The model family (src/models/registry.ts), manifest.model. */
  family: string
  /** Where the model was made: a run, or a sweep's best trial. */
  source: { kind: 'run' } | { kind: 'sweep'; sweep_id: string; trial: number }
  /** The pinned table, as the run's manifest names it (url, the user's path, version, content digest). */
  table: { url: string; path?: string; version: number; digest: string }
  label: string
  /**
   * Multiclass with a string label: the model's label dictionary (its learner attribute
   * snaptrain_label_values, Booster.labelValues), sorted; class k is label_values[k], and a label
   * value not in it is refused (as snaptrain refuses a class the training rows lack).
   */
  label_values?: string[]
  /**
   * Ranking (rank:*): the query id column (the run's --qid). Rows are ranked within their query;
   * a query is never split between workers or by the validation split (its key is this column).
   */
  qid?: string
  filter: string | null
  /** Features in the model's input order. */
  features: ContinueFeature[]
  validation: ContinueValidation
  /**
   * The family's parameters as the model was trained with them (GBDT: XGBoost names; a multiclass
   * model's num_class is the model's K, also where the run inferred it).
   */
  params: Record<string, unknown>
  /** Validation metric the jobs print first (e.g. 'auc', 'logloss', 'rmse'). */
  metric: string
  seed: number
  /** How far training got: GBDT boosting rounds (a multiclass round is K trees), recommender optimizer steps and epochs. */
  done: { rounds: number } | { steps: number; epochs: number }
  /** File names inside the bundle. */
  files: { model?: string; features?: string; weights?: string; optimizer?: string; jobs: string[] }
  /**
   * How a worker reads its shard without a Delta reader: `snaptrain scan` arguments (after the
   * command itself, which the jobs take from $SNAPTRAIN, default `snaptrain`), to which a job adds
   * `--shards K --shard r`. Reads exactly the pinned version, the label, features and key columns.
   */
  scan: { args: string[] }
}

/** File name of the description inside a bundle. */
export const CONTINUE_JSON = 'continue.json'
/** File name of the shared Python runtime inside a bundle. */
export const CONTINUE_RUNTIME = 'snaptrain_continue.py'
