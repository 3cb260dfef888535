/**
 * Tasks a loader worker runs besides reading units, by name. The data layer knows no model: code
 * above it registers its tasks (src/models/loader-tasks.ts, imported by the loader worker's entry),
 * each as a lazy import, so a worker loads a task's code only when it first runs it — as
 * src/ranks/jobs.ts does for rank jobs. A task's arguments and value are structured-clone data,
 * typed by its registrant.
 */

/** A task's value, and the buffers to transfer (not copy) with it. */
export interface LoaderTaskResult {
  value: unknown
  transfer?: ArrayBuffer[]
}

/**
 * One task: `args` as sent; `state`: this worker's scratch, kept between calls (a task keys its
 * entries by its own name, e.g. rows kept by one task for the next).
 */
export type LoaderTask = (args: unknown[], state: Map<string, unknown>) => LoaderTaskResult | Promise<LoaderTaskResult>

const tasks = new Map<string, () => Promise<LoaderTask>>()

/** Registers (or replaces) the task `name`; `load` imports its module when a worker first runs it. */
export function registerLoaderTask(name: string, load: () => Promise<LoaderTask>): void {
  tasks.set(name, load)
}

/** The task named `name`; RangeError listing the known names otherwise. */
export async function loadLoaderTask(name: string): Promise<LoaderTask> {
  const load = tasks.get(name)
  if (!load) throw new RangeError(`loader task "${name}": unknown (known: ${[...tasks.keys()].join(', ') || 'none'})`)
  return load()
}
