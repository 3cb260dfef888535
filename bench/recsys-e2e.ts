/**
 * The `recsys` suite's end-to-end measurement: one whole `snaptrain train --model recsys` run in
 * the page (runTraining, src/run/pipeline.ts: the one training run the CLI drives), on the suite's
 * table, parameters and batch, at the default eval_every, with its time split
 * (RecsysTrainSummary.timing: statistics pass, setup, input wait, featurize, step, uploads, GPU
 * waits, evaluation, read-backs, timestamp-query GPU time). samples/s = trained rows / train_seconds,
 * as `train` reports it: the statistics pass excluded, setup, evaluations and the final export included.
 */
import type { RecsysTrainResult } from '../src/models/recsys/family.ts'
import { runTraining } from '../src/run/pipeline.ts'

/** What the end-to-end run measured. */
export interface EndToEndResult {
  /** `train`'s summary: samples_per_second, train_seconds, steps, rounds, auc and the time split. */
  summary: RecsysTrainResult['summary']
  /** Training rows of the run (all steps). */
  samples: number
}

/** Options of runEndToEnd. */
export interface EndToEndOptions {
  tableUrl: string
  /** `--params` of the run (the suite's parameter set; eval_every left at its default). */
  params: Record<string, unknown>
  validFraction: number
  workers: number
  /** Row filter (the --quick smoke run trains on a slice). */
  filter?: string
  progress(msg: string): void
}

/** Trains once through runTraining and returns its summary. */
export async function runEndToEnd(o: EndToEndOptions): Promise<EndToEndResult> {
  const result = (await runTraining(
    {
      model: 'recsys',
      table: o.tableUrl,
      label: 'label',
      validFraction: o.validFraction,
      params: o.params,
      workers: o.workers,
      backend: 'gpu',
      ...(o.filter ? { filter: o.filter } : {}),
    },
    p => o.progress(p.kind === 'stage' ? `train: ${p.message}` : `train: evaluation ${p.round + 1}/${p.rounds}`),
  )) as RecsysTrainResult
  const s = result.summary
  return { summary: s, samples: Math.round(s.samples_per_second * s.train_seconds) }
}
