/**
 * The sweep methods of window.snaptrain without loading the sweep runtime up front: planning and
 * default spaces and importance are pure and answer at once; everything that runs, stores or reads a sweep
 * loads sweep-api.ts (scheduler, runners, IndexedDB store) on its first call.
 */
import { defaultSpace } from '../tune/defaults.ts'
import type { SweepApi } from './api.ts'
import { planSweep } from './plan.ts'
import { sweepImportance } from '../tune/importance.ts'
import type { SweepConfig } from '../tune/types.ts'
import { familyOf } from '../models/registry.ts'

/** SweepApi whose async methods load the runtime lazily; `resolve` makes a config's table URLs absolute. */
export function lazySweepApi(resolve: (c: SweepConfig) => SweepConfig): SweepApi {
  let api: Promise<SweepApi> | undefined
  const load = (): Promise<SweepApi> => (api ??= import('./api.ts').then(m => m.createSweepApi({ resolve })))
  return {
    sweep: async (config, onEvent, opts) => (await load()).sweep(config, onEvent, opts),
    resumeSweep: async (id, onEvent, credentials) => (await load()).resumeSweep(id, onEvent, credentials),
    stopSweep: async id => (await load()).stopSweep(id),
    listSweeps: async () => (await load()).listSweeps(),
    getSweep: async id => (await load()).getSweep(id),
    deleteSweep: async id => (await load()).deleteSweep(id),
    exportSweep: async id => (await load()).exportSweep(id),
    importSweep: async json => (await load()).importSweep(json),
    sweepArtifacts: async (id, trial) => (await load()).sweepArtifacts(id, trial),
    sweepContinueFiles: async id => (await load()).sweepContinueFiles(id),
    defaultSpace: model => defaultSpace(familyOf(model)),
    planSweep: config => planSweep(resolve(config)),
    sweepImportance: state => sweepImportance(state, familyOf(state.config.model)),
  }
}
