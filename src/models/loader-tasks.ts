/**
 * The model families' loader-worker tasks, registered with the data layer from above (it imports
 * no model). Imported for its effect by the loader worker's entry, and by bin-workers.ts for
 * services run on the page's own thread.
 */
import { registerLoaderTask, type LoaderTask } from '../data/loader-tasks.ts'

/** GBDT quantisation, sketch then bin (src/models/gbdt/row-quantise.ts, driven by bin-workers.ts). */
registerLoaderTask('gbdt-sketch', async () => (await import('./gbdt/row-quantise.ts')).sketchTask as LoaderTask)
registerLoaderTask('gbdt-bin', async () => (await import('./gbdt/row-quantise.ts')).binTask as LoaderTask)
