/**
 * The sweep runtime around the pure engine (src/tune): the stores, the models' parameter checks
 * for spaces, and the page's sweep entry points.
 *   new MemoryStore(); await IdbStore.open(name = 'snaptrain')  — both implement SweepStore
 *   paramCheck(model), MODEL_PARAMS[model]: ModelParamCheck (parseSpace's second argument); GBDT_PARAM_NAMES, MODEL_PARAM_NAMES[model]
 */
export { MemoryStore } from './store-memory.ts'
export { IdbStore, IDB_NAME, IDB_VERSION } from './store-idb.ts'
export { GBDT_PARAM_NAMES, MODEL_PARAM_NAMES, MODEL_PARAMS, paramCheck } from './model-params.ts'
