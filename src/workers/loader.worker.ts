/** Loader worker: exposes the loader service (src/data/loader-service.ts) over comlink. */
import { expose } from 'comlink'
import { createLoaderService } from '../data/loader-service.ts'

expose(createLoaderService())
