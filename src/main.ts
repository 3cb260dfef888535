/**
 * Page entry: installs window.snaptrain, applies the epoch cache settings the user kept (before any
 * run can start, so a reload keeps them), then defines the components (st-app uses the API).
 */
import { installApi } from './api.ts'
import { applyKeptCacheSettings } from './ui/cache-settings.ts'

applyKeptCacheSettings(installApi())
await import('./ui/app.ts')
