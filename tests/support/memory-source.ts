/**
 * An in-memory epoch of fixed recommender batches for training-loop tests: every epoch yields
 * `batches` in order, and the cursor is the batch index (as `position`), so resuming from a
 * cursor continues exactly after the last delivered batch.
 */
import type { Cursor } from '../../src/data/types.ts'
import type { TrainSource } from '../../src/models/recsys/data.ts'
import type { FeatureLayout, ModelBatch, ModelShape } from '../../src/models/recsys/types.ts'

/** A TrainSource over `batches` for a model of `shape` with two sparse features. */
export function memorySource(batches: ModelBatch[], shape: Pick<ModelShape, 'totalRows' | 'dense'>): TrainSource {
  const layout = { sparse: [{}, {}], totalRows: shape.totalRows, denseInputs: shape.dense } as unknown as FeatureLayout
  return {
    layout,
    stepsPerEpoch: batches.length,
    open: (_epoch, cursor) => {
      let at = cursor?.position ?? 0
      return {
        async *batches() {
          while (at < batches.length) yield batches[at++]
        },
        cursor: () => ({ position: at }) as Cursor,
        close: async () => {},
      }
    },
  }
}
