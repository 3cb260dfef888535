/** Page entry: installs window.snaptrain, then defines the components (st-app uses the API). */
import { installApi } from './api.ts'

installApi()
await import('./ui/app.ts')
