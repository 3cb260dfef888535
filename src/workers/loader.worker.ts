/**
 * Loader worker: exposes the loader service (src/data/loader-service.ts) over comlink, with the
 * model families' loader tasks registered first (this entry is the top of the worker's module graph).
 */
import { expose } from 'comlink'
import '../models/loader-tasks.ts'
import { createLoaderService } from '../data/loader-service.ts'

expose(createLoaderService())
