/** Rank worker: exposes the rank service (src/dist/rank-service.ts) over comlink. */
import { expose } from 'comlink'
import { createRankService } from '../dist/rank-service.ts'

expose(createRankService())
