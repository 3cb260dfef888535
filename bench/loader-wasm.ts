/**
 * The loader bench's second peer: `parquet-wasm` (Rust's parquet reader compiled to WebAssembly)
 * with `apache-arrow`, in N module workers (bench/loader-wasm.worker.ts). Every unit of the plan
 * (a row group's live rows) is read by HTTP Range requests in a worker, decoded to the loader's
 * typed columns there and transferred to this thread; reads go to the worker with the fewest in
 * flight, at most as many in flight as the loader prefetches (2 per worker + 2, at least 4).
 *
 * Why the files are opened ahead (every worker every file, one worker after another, before the
 * first epoch): N workers opening one file together sent overlapping footer requests, which
 * Chromium's HTTP cache now and then answered short (see the worker's fetch); opened one at a
 * time they never overlap, and no timed epoch opens a file.
 */
import type { ScanPlan } from '../src/data/types.ts'
import { groupStartOf } from '../src/parquet/group-read.ts'
import type { CsvColumnSpec } from './loader-csv.ts'
import type { PeerColumn, WasmUnit } from './loader-arrow.ts'
import type { WasmOpenRequest, WasmReply, WasmRequest } from './loader-wasm.worker.ts'

/** What one epoch of the peer delivered, and where its workers' time went. */
export interface WasmEpoch {
  rows: number
  /** Bytes of typed arrays delivered. */
  bytes: number
  /** ms from the epoch's start to the first unit's columns on this thread. */
  firstMs: number
  /** ms from the epoch's start to the last unit's columns on this thread. */
  wallMs: number
  /** Summed over units: ms moving Arrow out of WASM and converting it to typed columns (synchronous: CPU time). */
  convertMs: number
}

/** N parquet-wasm workers reading one plan; workers (and their open files) persist across epochs. */
export interface WasmPeer {
  workers: number
  /** Reads every unit once, in plan order; `onUnit` receives each unit's columns as they arrive. */
  epoch(onUnit?: (id: number, rows: number, cols: Record<string, PeerColumn>) => void): Promise<WasmEpoch>
  close(): void
}

/** Every worker opens every URL (footer reads), one worker after another. */
async function openFiles(workers: readonly Worker[], files: WasmOpenRequest['open']): Promise<void> {
  for (const [i, worker] of workers.entries()) {
    await new Promise<void>((resolve, reject) => {
      worker.onerror = e => reject(new Error(`wasm peer worker ${i}: ${e.message}`))
      worker.onmessage = (e: MessageEvent<WasmReply>) => {
        const r = e.data
        if ('opened' in r) resolve()
        else
          reject(
            new Error(`wasm peer worker ${i}, opening files: ${'openError' in r ? r.openError : 'unexpected reply'}`),
          )
      }
      const request: WasmRequest = { open: files }
      worker.postMessage(request)
    })
  }
}

/** The plan's units as the peer's workers read them. */
export function wasmUnits(plan: ScanPlan): WasmUnit[] {
  return plan.units.map(u => {
    const file = plan.files[u.fileIndex]!
    return {
      id: u.id,
      url: file.url,
      rowGroup: u.rowGroup,
      groupStart: groupStartOf(file.metadata, u.rowGroup),
      rowStart: u.rowStart,
      rowEnd: u.rowEnd,
      ...(u.live ? { live: u.live } : {}),
    }
  })
}

/** Starts `workers` parquet-wasm workers for `plan`'s units and `columns` (physical = logical names). */
export function createWasmPeer(plan: ScanPlan, columns: readonly CsvColumnSpec[], workers: number): WasmPeer {
  if (!Number.isInteger(workers) || workers < 1) throw new RangeError(`workers: ${workers} (an integer ≥ 1)`)
  const units = wasmUnits(plan)
  const pool = Array.from({ length: workers }, () => ({
    worker: new Worker(new URL('./loader-wasm.worker.ts', import.meta.url), { type: 'module' }),
    inFlight: 0,
  }))
  const maxInFlight = Math.max(4, 2 * workers + 2)
  const files = plan.files.map(f => ({ url: f.url, size: f.size }))
  let busy = false
  let opened: Promise<void> | undefined

  const epoch: WasmPeer['epoch'] = async onUnit => {
    if (busy) throw new Error('wasm peer: one epoch at a time')
    busy = true
    try {
      await (opened ??= openFiles(
        pool.map(p => p.worker),
        files,
      ))
    } catch (e) {
      busy = false
      throw e
    }
    const t0 = performance.now()
    const out: WasmEpoch = { rows: 0, bytes: 0, firstMs: -1, wallMs: 0, convertMs: 0 }
    return new Promise<WasmEpoch>((resolve, reject) => {
      let next = 0
      let done = 0
      let failed = false
      const send = (): void => {
        while (next < units.length && pool.reduce((s, w) => s + w.inFlight, 0) < maxInFlight) {
          const slot = pool.reduce((best, w) => (w.inFlight < best.inFlight ? w : best), pool[0]!)
          slot.inFlight++
          const request: WasmRequest = { unit: units[next++]!, columns }
          slot.worker.postMessage(request)
        }
      }
      for (const slot of pool) {
        slot.worker.onerror = e => {
          failed = true
          reject(new Error(`wasm peer worker: ${e.message}`))
        }
        slot.worker.onmessage = (e: MessageEvent<WasmReply>) => {
          slot.inFlight--
          if (failed) return
          const r = e.data
          if (!('id' in r)) return // answers to opens come before the first epoch
          if ('error' in r) {
            failed = true
            reject(new Error(`wasm peer, unit ${r.id}: ${r.error}`))
            return
          }
          if (out.firstMs < 0) out.firstMs = performance.now() - t0
          out.rows += r.rows
          for (const c of Object.values(r.cols)) out.bytes += c.byteLength
          out.convertMs += r.convertMs
          onUnit?.(r.id, r.rows, r.cols)
          if (++done === units.length) {
            out.wallMs = performance.now() - t0
            resolve(out)
          } else send()
        }
      }
      send()
      if (units.length === 0) resolve({ ...out, firstMs: 0 })
    }).finally(() => {
      busy = false
    })
  }
  return {
    workers,
    epoch,
    close: () => {
      for (const slot of pool) slot.worker.terminate()
    },
  }
}
