/**
 * The files a sweep's result card downloads, built from the sweep methods of window.snaptrain:
 * best params JSON, the best trial's model (XGBoost JSON or UBJSON for GBDT, the binary model file
 * for the recommender, which also converts to ONNX and to safetensors + features.json) and run
 * manifest, trials CSV (tune/export.ts `trialsCsv`: byte for byte the file
 * `snaptrain sweep` writes), the best trial's continue bundle as continue.zip (the files of `snaptrain
 * sweep`'s DIR/continue/, src/continue/zip.ts), the whole sweep as JSON, the sweep as
 * an Optuna journal (tune/optuna.ts `optunaJournal`, as `snaptrain sweep` writes it) — and saving
 * one as a Blob download with its file name.
 */
import { trialsCsv } from '../tune/export.ts'
import { OPTUNA_JOURNAL_FILE, optunaJournal } from '../tune/optuna.ts'
import { decodeModel, encodeModel } from '../models/gbdt/model-file.ts'
import { exportModelFile } from '../models/recsys/export.ts'
import { fromBase64 } from '../continue/sweep-bundle.ts'
import { bundleZip, CONTINUE_ZIP } from '../continue/zip.ts'
import type { SweepApi, SweepDownloadKind, SweepState } from './types.ts'
import { FAMILIES, familyOf } from '../models/registry.ts'
import { trialStates } from '../tune/trial-state.ts'

/** A file to save: name and contents. */
export interface DownloadFile {
  name: string
  blob: Blob
}

const json = (v: unknown) => new Blob([JSON.stringify(v, null, 2) + '\n'], { type: 'application/json' })

/** The best trial's stored artifacts; throws naming the sweep and trial when there are none. */
async function bestArtifacts(lib: SweepApi, s: SweepState) {
  if (!s.best) throw new Error(`sweep ${s.id} has no best trial yet`)
  const a = await lib.sweepArtifacts(s.id, s.best.trial)
  if (!a) throw new Error(`sweep ${s.id}: no artifacts stored for trial ${s.best.trial}`)
  return { a, trial: s.best.trial }
}

/** Throws `sweep <id>: only <family> models <what>` when `kind` is not a download of the sweep's family (registry `downloads`). */
function ownDownload(s: SweepState, kind: SweepDownloadKind, what: string): void {
  if (familyOf(s.config.model).downloads.includes(kind)) return
  const those = FAMILIES.filter(f => f.downloads.includes(kind)).map(f => f.noun)
  throw new Error(`sweep ${s.id}: only ${those.join(' or ')} models ${what}`)
}

/** Builds file `kind` of sweep `s`; throws with the cause when the API cannot supply it. */
export async function sweepFile(lib: SweepApi, s: SweepState, kind: SweepDownloadKind): Promise<DownloadFile> {
  const base = `sweep-${s.id}`
  switch (kind) {
    case 'params':
      if (!s.best) throw new Error(`sweep ${s.id} has no best trial yet`)
      return { name: `${base}-params.json`, blob: json(s.best.params) }
    case 'model': {
      const { a, trial } = await bestArtifacts(lib, s)
      if (!a.model) throw new Error(`sweep ${s.id}: trial ${trial} stored no model`)
      // The family's model file (registry modelFiles[0]): JSON text as stored, else bytes stored as base64.
      const d = familyOf(s.config.model)
      const name = `${base}-trial${trial}-${d.modelFiles[0]}`
      return d.textModel
        ? { name, blob: new Blob([a.model], { type: 'application/json' }) }
        : { name, blob: new Blob([fromBase64(a.model)], { type: 'application/octet-stream' }) }
    }
    case 'model-ubj': {
      // The stored model is XGBoost JSON text; the same object written as UBJSON (model-file.ts).
      const { a, trial } = await bestArtifacts(lib, s)
      ownDownload(s, kind, 'have a UBJSON file')
      if (!a.model) throw new Error(`sweep ${s.id}: trial ${trial} stored no model`)
      return {
        name: `${base}-trial${trial}-model.ubj`,
        blob: new Blob([encodeModel(decodeModel(a.model), 'ubj')], { type: 'application/ubjson' }),
      }
    }
    case 'model-onnx':
    case 'model-safetensors':
    case 'features': {
      // The recommender's model.bin converted here (models/recsys/export.ts, as `snaptrain export`).
      const { a, trial } = await bestArtifacts(lib, s)
      ownDownload(s, kind, `export to ${kind}`)
      if (!a.model) throw new Error(`sweep ${s.id}: trial ${trial} stored no model`)
      const format = kind === 'model-onnx' ? 'onnx' : 'safetensors'
      const e = await exportModelFile(fromBase64(a.model), format, `sweep ${s.id} trial ${trial} model`)
      if (kind === 'features')
        return {
          name: `${base}-trial${trial}-features.json`,
          blob: new Blob([e.features!], { type: 'application/json' }),
        }
      const ext = kind === 'model-onnx' ? 'onnx' : 'safetensors'
      return {
        name: `${base}-trial${trial}-model.${ext}`,
        blob: new Blob([e.model as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }),
      }
    }
    case 'manifest': {
      const { a, trial } = await bestArtifacts(lib, s)
      if (a.manifest === undefined) throw new Error(`sweep ${s.id}: trial ${trial} stored no manifest`)
      return { name: `${base}-trial${trial}-manifest.json`, blob: json(a.manifest) }
    }
    case 'csv':
      return {
        name: `${base}-trials.csv`,
        blob: new Blob([trialsCsv(s.trials, { states: trialStates(s, familyOf(s.config.model)) })], {
          type: 'text/csv',
        }),
      }
    case 'continue':
      return {
        name: `${base}-${CONTINUE_ZIP}`,
        blob: new Blob([bundleZip(await lib.sweepContinueFiles(s.id))], { type: 'application/zip' }),
      }
    case 'sweep':
      return { name: `${base}.json`, blob: new Blob([await lib.exportSweep(s.id)], { type: 'application/json' }) }
    case 'optuna':
      // The text `snaptrain sweep` writes as DIR/optuna-journal.log (tune/optuna.ts).
      return {
        name: `${base}-${OPTUNA_JOURNAL_FILE}`,
        blob: new Blob([optunaJournal(s, familyOf(s.config.model))], { type: 'text/plain' }),
      }
  }
}

/** Saves `f` through a temporary `<a download>` (the browser's download, no server round trip). */
export function downloadFile(f: DownloadFile): void {
  const url = URL.createObjectURL(f.blob)
  const a = document.createElement('a')
  a.href = url
  a.download = f.name
  document.body.append(a)
  a.click()
  a.remove()
  // Revoke later: Chrome reads the blob after click() returns.
  setTimeout(() => URL.revokeObjectURL(url), 60_000)
}
