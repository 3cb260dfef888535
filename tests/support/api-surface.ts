/**
 * The library's public surface, entry point by entry point, with each one's kind: window.snaptrain
 * (src/api.ts createApi / installApi) and the modules other code imports the library through
 * (src/api.ts and every index.ts module under src/: table, tune, sweep, ranks). Adding, removing or
 * retyping an entry point changes this file on purpose. None of it is a benchmark: the bench API
 * lives on bench.html (window.snaptrainBench, bench/page.ts).
 */
import type { SnaptrainApi } from '../../src/api-types.ts'

/** What an exported value is. */
export type Kind = 'function' | 'class' | 'string' | 'number' | 'boolean' | 'array' | 'object' | 'undefined'

/** `v`'s kind; a class is a function whose source starts with `class`. */
export function kindOf(v: unknown): Kind {
  if (typeof v === 'function') return /^class\b/.test(Function.prototype.toString.call(v)) ? 'class' : 'function'
  if (Array.isArray(v)) return 'array'
  if (v === null) return 'object'
  return typeof v as Kind
}

/** Name → kind of every own enumerable entry of `o` (a module namespace or an API object), sorted by name. */
export function surface(o: object): Record<string, Kind> {
  return Object.fromEntries(
    Object.keys(o)
      .sort()
      .map(k => [k, kindOf((o as Record<string, unknown>)[k])]),
  )
}

/**
 * window.snaptrain: one entry per member of SnaptrainApi (the `satisfies` makes a member missing
 * here, or one here that the type lacks, a compile error).
 */
export const SNAPTRAIN_API = {
  adapterInfo: 'function',
  clearUnitCache: 'function',
  configureUnitCache: 'function',
  defaultSpace: 'function',
  deleteRun: 'function',
  deleteSweep: 'function',
  explain: 'function',
  exportSweep: 'function',
  getSweep: 'function',
  importSweep: 'function',
  listCommits: 'function',
  listRuns: 'function',
  listShares: 'function',
  listSweeps: 'function',
  listTables: 'function',
  openProfile: 'function',
  openSnapshot: 'function',
  planSweep: 'function',
  predict: 'function',
  readRows: 'function',
  resumeSweep: 'function',
  runData: 'function',
  runFiles: 'function',
  saveRun: 'function',
  stopSweep: 'function',
  stopTraining: 'function',
  sweep: 'function',
  sweepArtifacts: 'function',
  sweepContinueFiles: 'function',
  sweepImportance: 'function',
  train: 'function',
  unitCacheSettings: 'function',
  unitCacheUsage: 'function',
  updateRun: 'function',
  version: 'string',
} as const satisfies Record<keyof SnaptrainApi, Kind>

/** The library modules' exports (runtime values; type exports are erased). */
export const LIBRARY_MODULES: Record<string, Record<string, Kind>> = {
  'src/api.ts': { adapterInfo: 'function', createApi: 'function', installApi: 'function', tableRoot: 'function' },
  'src/table/index.ts': {
    SUPPORTED_READER_FEATURES: 'object',
    TableError: 'class',
    Timestamp: 'class',
    fetchBytes: 'function',
    fetchJson: 'function',
    fetchText: 'function',
    listCommits: 'function',
    openSnapshot: 'function',
    readRows: 'function',
    retryingFetch: 'function',
    scanFile: 'function',
  },
  'src/tune/index.ts': {
    AshaStrategy: 'class',
    DEFAULT_TRIALS: 'number',
    HyperbandStrategy: 'class',
    OPTUNA_JOURNAL_FILE: 'string',
    STRATEGY_NAMES: 'array',
    SWEEP_FORMAT: 'string',
    SWEEP_FORMAT_VERSION: 'number',
    TRIAL_COLUMNS: 'array',
    ashaRungs: 'function',
    bestSoFar: 'function',
    bestTrial: 'function',
    choiceIndex: 'function',
    createStrategy: 'function',
    csvField: 'function',
    decode: 'function',
    decodeDim: 'function',
    defaultSpace: 'function',
    encode: 'function',
    encodeDim: 'function',
    exportSweep: 'function',
    fullBudgetSeconds: 'function',
    gpuSecondsTotal: 'function',
    grid: 'function',
    gridConfig: 'function',
    gridSize: 'function',
    gridValues: 'function',
    hyperbandBracket: 'function',
    hyperbandPlan: 'function',
    hyperbandSMax: 'function',
    importSweep: 'function',
    optunaJournal: 'function',
    parameterImportance: 'function',
    parseSpace: 'function',
    percentile: 'function',
    planCost: 'function',
    reachedResource: 'function',
    readJournal: 'function',
    resolveStrategyOptions: 'function',
    sample: 'function',
    searchDims: 'function',
    sweepImportance: 'function',
    tpeSuggest: 'function',
    trialsCsv: 'function',
    validateStrategyOptions: 'function',
    warmStartFromJournal: 'function',
    withoutParams: 'function',
  },
  'src/sweep/index.ts': {
    GBDT_PARAM_NAMES: 'array',
    IDB_NAME: 'string',
    IDB_VERSION: 'number',
    IdbStore: 'class',
    MODEL_PARAMS: 'object',
    MODEL_PARAM_NAMES: 'object',
    MemoryStore: 'class',
    paramCheck: 'function',
  },
  'src/sources/index.ts': {
    TableArgError: 'class',
    accessResolver: 'function',
    listTables: 'function',
    openTable: 'function',
    openTableAccess: 'function',
    pageView: 'function',
    recordedAddress: 'function',
    registerSource: 'function',
    sourceKinds: 'function',
    sourceOf: 'function',
    sourceOfAccess: 'function',
    tableResolver: 'function',
  },
  'src/sharing/index.ts': {
    SharedTableSession: 'class',
    SharingClient: 'class',
    checkNotExpired: 'function',
    escapeName: 'function',
    isShareAddress: 'function',
    parseCoordinates: 'function',
    parseProfile: 'function',
    parseShareAddress: 'function',
    pathSegment: 'function',
    shareTableUrl: 'function',
  },
  'src/ranks/index.ts': {
    DEFAULT_RANK_TIMEOUT_MS: 'number',
    RankGroup: 'class',
    combineStats: 'function',
    liveRankWorkers: 'function',
    localGroup: 'function',
    reduceArrays: 'function',
    runRanks: 'function',
  },
}
