/**
 * Rank worker: exposes the rank service (src/ranks/rank-service.ts) over comlink, with the model
 * families' rank jobs registered first (this entry is the top of the worker's module graph).
 */
import { expose } from 'comlink'
import '../models/rank-jobs.ts'
import { createRankService } from '../ranks/rank-service.ts'

expose(createRankService())
