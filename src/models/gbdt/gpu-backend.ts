/**
 * WebGPU backend of the GBDT driver: the CPU backend's operations (cpu-backend.ts, the executable
 * specification) done by the WGSL kernels, with gradients, positions, histograms and margins resident
 * on the device. Per round only the root sums, each level's split results (SPLIT_WORDS per node) and, for
 * the metrics, the validation margins are read back. Work is queued into one command encoder and
 * submitted at those read-backs (a level = one submit). N = rows, F = features, V = validation rows, B = total bins, S = histogram slots, M = nodes.
 */
import type {
  AppliedSplit,
  BackendFactory,
  BackendReduce,
  BackendSetup,
  EvalRequest,
  GbdtBackend,
  NodeSums,
  SubtractJob,
} from './backend.ts'
import { allreducePairs } from './hist-reduce.ts'
import type { SplitCandidate, Tree } from './types.ts'
import { PipelineCache } from '../../gpu/pipeline-cache.ts'
import { createBuffer, uploadBuffer } from '../../gpu/buffers.ts'
import { gradientCall, gradientSpec, softmaxGradientCall, softmaxGradientSpec } from '../../kernels/gbdt/gradient.ts'
import {
  ROW_UNUSED,
  decodeSplit,
  featureKinds,
  SPLIT_WORDS,
  type SplitResult,
  packTrees,
} from '../../kernels/gbdt/layout.ts'
import { quantiseCalls, quantiseMaxSpec, quantiseSpec, SCALES_BYTES } from '../../kernels/gbdt/quantise.ts'
import {
  histogramBuildCall,
  histogramBuildClassesSpec,
  histogramBuildRowsCall,
  histogramBuildRowsSpec,
  histogramBuildSpec,
} from '../../kernels/gbdt/histogram_build.ts'
import {
  rowCompactCalls,
  rowCompactScanSpec,
  rowCompactScatterSpec,
  rowCompactSpec,
  rowCountWords,
} from '../../kernels/gbdt/row_compact.ts'
import { histogramBuildWgCall, histogramBuildWgSpec } from '../../kernels/gbdt/histogram_build_wg.ts'
import { chooseHistogramKernel, type HistogramKernel } from '../../kernels/gbdt/histogram_choice.ts'
import { histogramSubtractCall, histogramSubtractSpec } from '../../kernels/gbdt/histogram_subtract.ts'
import { splitEvaluateCall, splitEvaluateSpec } from '../../kernels/gbdt/split_evaluate.ts'
import { int64 } from '../../kernels/gbdt/fixed-point.ts'
import { splitTable } from './split-table.ts'
import { nodeSumsWithBounds, splitParams } from './split-inputs.ts'
import { rowPartitionCall, rowPartitionSpec } from '../../kernels/gbdt/row_partition.ts'
import { marginUpdateCall, marginUpdateSpec } from '../../kernels/gbdt/margin_update.ts'
import { predictCall, predictSpec } from '../../kernels/gbdt/predict.ts'
import { mergeConstants } from '../../kernels/runner.ts'
import type { KernelSpec } from '../../kernels/spec.ts'
import { rowSampled, treeIndex } from './sampling.ts'
import { addTree } from './predict.ts'
import { checkBudget, estimateMemory, peakSlots, planChunks } from './gpu-chunks.ts'
import { destroyResident, uploadResident, type Resident, type RowChunk } from './gpu-buffers.ts'
import { createChecked, GpuRecorder, type StageTimes } from '../../gpu/recorder.ts'
import { HistogramSlots } from './gpu-slots.ts'
import { kernelObjective, outputsOf } from './objective.ts'

/** Features per invocation of the level builds (histogram_build_rows); 4 vs 32: within noise on SwiftShader. */
const BUILD_FPI = 4

/** Options of the GPU backend. */
export interface GpuBackendOptions {
  /**
   * Largest storage binding for the training/validation data, bytes (default: the device's
   * maxStorageBufferBindingSize). Smaller values force the chunked path (tests use this).
   */
  maxBindingBytes?: number
  /** Memory the run may allocate, bytes (default 4 × maxBufferSize: WebGPU reports no total). */
  memoryBudgetBytes?: number
  /** Histogram kernel; default: chooseHistogramKernel's measurement for the device. */
  histogramKernel?: HistogramKernel
  /** Histogram slots allocated up front (default: the tree's peak, peakSlots); more grow on demand. */
  initialSlots?: number
  /** When given, each stage is submitted and awaited alone, and its wall ms added here. */
  profile?: StageTimes
}

/**
 * A BackendFactory training on `device` (pipelines from `cache`, or a new cache). Throws a
 * RangeError naming the size needed when the run exceeds the memory budget.
 */
export function createGpuBackend(
  device: GPUDevice,
  cache?: PipelineCache,
  opts: GpuBackendOptions = {},
): BackendFactory {
  const pc = cache ?? new PipelineCache(device)
  return async (setup: BackendSetup) => {
    const kernel = opts.histogramKernel ?? (await chooseHistogramKernel(pc))
    // Uploads inside error scopes: an allocation failure throws here, not as garbage later.
    return createChecked(
      device,
      'uploading the training data',
      () => new GpuBackend(pc, setup, kernel, opts),
      b => b.dispose(),
    )
  }
}

/** A pipeline as (spec, override constants given by the call). */
type Pipeline = [KernelSpec<never>, Record<string, number | undefined>]

/**
 * The pipelines a GpuBackend dispatches: with `kernel` (undefined: only those every kernel uses),
 * predict only with validation rows; the calls below with their constants. A multiclass run
 * (`multiclass`: K > 1 outputs a row) has its own gradient, one histogram build for every kernel
 * (histogram_build_classes, the root sums' and the nodes') and no predict. warmGpuBackend compiles them
 * ahead; tests/browser/warm-pipelines.test.ts checks the list against a run.
 */
export function backendPipelines(kernel: HistogramKernel | undefined, valid: boolean, multiclass = false): Pipeline[] {
  const byKernel: Pipeline[] =
    kernel === undefined
      ? []
      : kernel === 'workgroup'
        ? [[histogramBuildWgSpec, {}]]
        : [
            [rowCompactSpec, {}],
            [rowCompactScanSpec, {}],
            [rowCompactScatterSpec, {}],
            [histogramBuildRowsSpec, { FPI: BUILD_FPI }],
          ]
  const build: Pipeline[] = multiclass
    ? [
        [histogramBuildClassesSpec, {}],
        [histogramBuildClassesSpec, { FPI: BUILD_FPI }],
      ]
    : [[histogramBuildSpec, {}], ...byKernel]
  return [
    [multiclass ? softmaxGradientSpec : gradientSpec, {}],
    [quantiseMaxSpec, {}],
    [quantiseSpec, {}],
    ...build,
    [histogramSubtractSpec, {}],
    [splitEvaluateSpec, {}],
    [rowPartitionSpec, {}],
    [marginUpdateSpec, {}],
    // A multiclass run's validation margins are summed on the host (GpuBackend.validHost).
    ...(valid && !multiclass ? [[predictSpec, {}] satisfies Pipeline] : []),
  ]
}

/**
 * Compiles the backend's pipelines into `cache` ahead of the first round and chooses the device's
 * histogram kernel (histogram_choice.ts caches it per adapter: the backend's own choice is then a
 * hit); resolves when they are compiled. Those every kernel uses compile while a real adapter
 * measures the choice.
 */
export async function warmGpuBackend(cache: PipelineCache, valid: boolean, multiclass = false): Promise<void> {
  const prepare = (pipes: Pipeline[]) =>
    pipes.map(([spec, c]) => cache.prepare(spec, mergeConstants(spec.overrides, c)))
  const common = prepare(backendPipelines(undefined, valid, multiclass))
  const kernel = await chooseHistogramKernel(cache)
  await Promise.all([...common, ...prepare(backendPipelines(kernel, valid, multiclass))])
}

/** [gLo, gHi, hLo, hHi] exact sums as dequantised NodeSums. */
function dequantiseSums(w: Uint32Array, gScale: number, hScale: number): NodeSums {
  return { g: int64(w[0], w[1]) / gScale, h: int64(w[2], w[3]) / hScale }
}

class GpuBackend implements GbdtBackend {
  private readonly device: GPUDevice
  private readonly enc: GpuRecorder
  private readonly res: Resident
  private readonly B: number
  private readonly F: number
  private readonly slots: HistogramSlots
  private readonly scales: GPUBuffer
  private readonly rootSum: GPUBuffer
  private readonly cutPtrs: GPUBuffer
  /** split_evaluate's featureKind (numeric, one-hot, partition per feature). */
  private readonly featureKind: GPUBuffer
  /** The one-bin pseudo feature of the root-sum pass: cutPtrs [0, 1], missOff [0], nodeSlot [0]. */
  private readonly sumTables: { cutPtrs: GPUBuffer; missOff: GPUBuffer; nodeSlot: GPUBuffer }
  /** Exact [gLo, gHi, hLo, hHi] per node id of the current tree (CPU copies of split outputs). */
  private readonly sums = new Map<number, Uint32Array>()
  private readonly results = new Map<number, SplitResult>()
  /**
   * Outputs per row (multiclass num_class, else 1): margins, pairs and positions hold n·K entries
   * per row chunk; histogram_build and row_partition take the K entries of a row in one pass.
   */
  private readonly K: number
  /** Multiclass: the validation margins (V × K), kept on the host and advanced by addTree per class tree. */
  private readonly validHost?: Float32Array

  constructor(
    readonly cache: PipelineCache,
    private readonly s: BackendSetup,
    private readonly kernel: HistogramKernel,
    opts: GpuBackendOptions,
  ) {
    this.device = cache.device
    const lim = this.device.limits
    const n = s.binned.rows,
      v = s.validColumns?.[0]?.length ?? 0
    this.F = s.binned.features
    this.B = s.cuts.cutPtrs[this.F]
    this.K = outputsOf(s.params)
    if (this.K > 1 && s.validColumns)
      this.validHost = s.initMargins?.valid?.slice() ?? new Float32Array(v * this.K).fill(s.baseMargin)
    const peak = peakSlots(s.params)
    checkBudget(
      estimateMemory(n, this.F, this.B, peak, v, s.weights !== undefined),
      opts.memoryBudgetBytes ?? 4 * lim.maxBufferSize,
      n,
      this.F,
    )
    // K entries per row: a row chunk's per-entry buffers are K times a row's, so chunks are K times smaller.
    const plan = planChunks(
      n,
      this.F,
      this.K > 1 ? 0 : v,
      Math.min(opts.maxBindingBytes ?? Infinity, lim.maxStorageBufferBindingSize) / this.K,
    )
    this.enc = new GpuRecorder(cache, { label: 'gbdt', profile: opts.profile })
    this.res = uploadResident(this.device, s, plan)
    this.slots = new HistogramSlots(
      this.device,
      this.B,
      opts.initialSlots ?? peak,
      Math.min(lim.maxStorageBufferBindingSize, lim.maxBufferSize),
    )
    this.scales = createBuffer(this.device, SCALES_BYTES)
    this.rootSum = createBuffer(this.device, 16 * this.K)
    this.cutPtrs = uploadBuffer(this.device, s.cuts.cutPtrs.slice())
    this.featureKind = uploadBuffer(
      this.device,
      featureKinds(s.cuts.cutPtrs, s.cuts.categorical, s.params.max_cat_to_onehot, s.monotone),
    )
    this.sumTables = {
      cutPtrs: uploadBuffer(this.device, Uint32Array.from([0, 1])),
      missOff: uploadBuffer(this.device, new Uint32Array(1)),
      nodeSlot: uploadBuffer(
        this.device,
        Int32Array.from({ length: this.K }, (_, k) => k),
      ),
    }
  }

  async beginRound(round: number): Promise<NodeSums[]> {
    const t0 = performance.now(),
      e = this.enc,
      p = this.s.params
    const objective = kernelObjective(p)
    const host = this.s.hostGradients && (await this.hostPairs(round, this.s.hostGradients))
    if (host) await e.stage('host gradient', t0)
    const t1 = host ? performance.now() : t0
    for (const c of this.res.rows) {
      if (this.K > 1) {
        const mask = p.subsample < 1 ? e.upload(this.sampleMask(round, (this.s.rowOffset ?? 0) + c.r0, c.n)) : undefined
        e.run(
          softmaxGradientCall(
            { margins: c.margins, labels: c.labels, weights: c.weights, positions: mask, gpair: c.gpair },
            c.n,
            this.K,
          ),
        )
        // Every (row, class) at its class tree's root k.
        e.encoder().copyBufferToBuffer(c.roots!, 0, c.positions, 0, 4 * c.n * this.K)
        continue
      }
      if (host) {
        this.device.queue.writeBuffer(c.gpair, 0, host, 2 * c.r0, 2 * c.n)
        e.encoder().clearBuffer(c.positions)
        continue
      }
      // Unsampled rows get (0, 0) gradients (the mask is the gradient kernel's `positions`) but
      // are partitioned too, as in XGBoost: positions restart at the root for every row.
      const mask = p.subsample < 1 ? e.upload(this.sampleMask(round, (this.s.rowOffset ?? 0) + c.r0, c.n)) : undefined
      e.run(
        gradientCall(
          { margins: c.margins, labels: c.labels, weights: c.weights, positions: mask, gpair: c.gpair },
          c.n,
          objective.id,
          p.scale_pos_weight,
          objective.param,
        ),
      )
      e.encoder().clearBuffer(c.positions)
    }
    await this.encodeQuantise()
    this.encodeRootSum()
    const [sums, scales] = await e.read([
      [this.rootSum, 16 * this.K],
      [this.scales, SCALES_BYTES],
    ])
    const root = this.s.reduce ? await allreducePairs(new Uint32Array(sums), this.s.reduce) : new Uint32Array(sums),
      sc = new Float32Array(scales)
    this.sums.clear()
    this.results.clear()
    this.slots.reset()
    await e.stage('gradient', t1)
    // Class k's root is round node k.
    return Array.from({ length: this.K }, (_, k) => {
      const w = root.slice(4 * k, 4 * k + 4)
      this.sums.set(k, w)
      return dequantiseSums(w, sc[2], sc[3])
    })
  }

  /**
   * Ranking: setup.hostGradients' pairs at the margins read back (the reads submit every pending
   * command, so the writes that follow land before this round's passes), unsampled rows (0, 0).
   */
  private async hostPairs(
    round: number,
    f: NonNullable<BackendSetup['hostGradients']>,
  ): Promise<Float32Array<ArrayBuffer>> {
    const p = this.s.params,
      r0 = this.s.rowOffset ?? 0
    const gpair = Float32Array.from(f(round, await this.trainMargins(), r0))
    for (let i = 0; i < gpair.length / 2; i++)
      if (!rowSampled(p.seed, round, r0 + i, p.subsample)) gpair.fill(0, 2 * i, 2 * i + 2)
    return gpair
  }

  /**
   * u32 × n·K: 0 for the (row, class) entries of rows [r0, r0 + n) in class k's tree's sample this
   * round (rowSampled at treeIndex(round, k, K)), ROW_UNUSED otherwise.
   */
  private sampleMask(round: number, r0: number, n: number): Uint32Array<ArrayBuffer> {
    const p = this.s.params,
      K = this.K,
      mask = new Uint32Array(n * K)
    for (let k = 0; k < K; k++) {
      const tree = treeIndex(round, k, K)
      for (let i = 0; i < n; i++) if (!rowSampled(p.seed, tree, r0 + i, p.subsample)) mask[i * K + k] = ROW_UNUSED
    }
    return mask
  }

  /**
   * Global max |g|, |h| over every row chunk, then each chunk quantised with the shared scales.
   * On a rank (setup.reduce) the maxima are read back and replaced by the max over ranks first.
   */
  private async encodeQuantise(): Promise<void> {
    const e = this.enc
    e.encoder().clearBuffer(this.scales, 0, SCALES_BYTES)
    const calls = this.res.rows.map(c =>
      quantiseCalls({ gpair: c.gpair, qgpair: c.qgpair, scales: this.scales }, c.n * this.K),
    )
    calls.forEach(([max]) => e.run(max))
    if (this.s.reduce) {
      const [local] = await e.read([[this.scales, 8]])
      // The read submitted every pending command, so this write lands before the scale pass.
      this.device.queue.writeBuffer(
        this.scales,
        0,
        (await this.s.reduce.max(new Float32Array(local))) as Float32Array<ArrayBuffer>,
      )
    }
    // A new pass: every maximum is final before any row is scaled.
    e.barrier()
    calls.forEach(([, q]) => e.run(q))
  }

  /** Exact root sums: a histogram of one pseudo feature with one bin (every row at node 0). */
  private encodeRootSum(): void {
    const e = this.enc,
      t = this.sumTables
    e.encoder().clearBuffer(this.rootSum)
    for (const c of this.res.rows) {
      e.run(
        histogramBuildCall(
          {
            bins: c.zeros,
            missOff: t.missOff,
            cutPtrs: t.cutPtrs,
            qgpair: c.qgpair,
            positions: c.positions,
            nodeSlot: t.nodeSlot,
            hist: this.rootSum,
          },
          { n: c.n, f: 1, rowWords: c.rowWords, b: 1, slots: this.K, classes: this.K },
        ),
      )
    }
  }

  async buildHistograms(nids: number[]): Promise<void> {
    if (nids.length === 0) return
    const t0 = performance.now(),
      e = this.enc
    const nodeSlot = new Int32Array(Math.max(...nids) + 1).fill(-1)
    for (const nid of nids) nodeSlot[nid] = this.slots.slot(nid, e)
    for (const nid of nids) this.slots.clear(nid, e)
    const table = e.upload(nodeSlot)
    const used = Math.max(...nids.map(nid => nodeSlot[nid])) + 1
    this.res.rows.forEach((rc, r) => {
      if (rc.n === 0) return // nothing to build; a 4-byte qgpair would fail indirect validation
      const rowCount = this.kernel === 'storage' && this.K === 1 ? this.encodeRowCompact(rc, table, used) : undefined
      this.res.features.forEach((fc, c) => {
        const buffers = {
          bins: this.res.tiles[r][c],
          missOff: fc.missOff,
          cutPtrs: fc.cutPtrs,
          qgpair: rc.qgpair,
          positions: rc.positions,
          nodeSlot: table,
          hist: this.slots.hist,
        }
        const shape = { n: rc.n, f: fc.f, rowWords: rc.rowWords, b: this.B, slots: used }
        // Multiclass: one pass over the rows for the K class trees' nodes (each row's bins read once).
        if (this.K > 1) e.run(histogramBuildCall(buffers, { ...shape, classes: this.K }, { FPI: BUILD_FPI }))
        else if (this.kernel === 'workgroup')
          e.run(histogramBuildWgCall({ ...buffers, chunks: fc.wgChunks }, { ...shape, chunks: fc.wgCount }))
        else
          e.runIndirect(
            histogramBuildRowsCall({ ...buffers, rows: rc.rowList, rowCount: rowCount! }, shape, { FPI: BUILD_FPI }),
            rc.rowArgs,
          )
      })
    })
    if (this.s.reduce) await this.reduceSlots(nids, this.s.reduce)
    await e.stage('histogram', t0)
  }

  /** Replaces the built slots of `nids` by their sums over ranks: one read, one allreduce, one write per slot. */
  private async reduceSlots(nids: number[], reduce: BackendReduce): Promise<void> {
    const bytes = this.B * 16,
      hist = this.slots.hist
    const parts = await this.enc.read(
      nids.map(nid => [hist, bytes, this.slots.slot(nid, this.enc) * bytes] as [GPUBuffer, number, number]),
    )
    const local = new Uint32Array(nids.length * this.B * 4)
    parts.forEach((b, m) => local.set(new Uint32Array(b), m * this.B * 4))
    const global = await allreducePairs(local, reduce)
    nids.forEach((nid, m) =>
      this.device.queue.writeBuffer(hist, this.slots.slot(nid, this.enc) * bytes, global, m * this.B * 4, this.B * 4),
    )
  }

  /** The chunk's built rows by slot + histogram_build_rows' indirect arguments (groups: widest feature chunk's); returns the count buffer. */
  private encodeRowCompact(rc: RowChunk, nodeSlot: GPUBuffer, slots: number): GPUBuffer {
    const groups = Math.max(1, ...this.res.features.map(fc => Math.ceil(fc.f / BUILD_FPI)))
    const count = this.enc.upload(new Uint32Array(rowCountWords(slots)))
    rowCompactCalls(
      { positions: rc.positions, nodeSlot, rows: rc.rowList, count, args: rc.rowArgs },
      { n: rc.n, groups, wg: histogramBuildSpec.overrides.WG, slots },
    ).forEach(call => this.enc.run(call))
    return count
  }

  async subtractHistograms(jobs: SubtractJob[]): Promise<void> {
    if (jobs.length === 0) return
    const t0 = performance.now(),
      e = this.enc
    const triples = new Uint32Array(jobs.length * 3)
    jobs.forEach((j, t) =>
      triples.set([this.slots.slot(j.parent, e), this.slots.slot(j.built, e), this.slots.slot(j.sibling, e)], 3 * t),
    )
    e.run(
      histogramSubtractCall({ triples: e.upload(triples), hist: this.slots.hist }, { count: jobs.length, b: this.B }),
    )
    await e.stage('subtract', t0)
  }

  async evaluateSplits(nodes: EvalRequest[]): Promise<SplitCandidate[]> {
    if (nodes.length === 0) return []
    const t0 = performance.now(),
      e = this.enc,
      F = this.F,
      M = nodes.length
    const mask = new Uint32Array(M * F),
      slots = new Uint32Array(M),
      sums = nodeSumsWithBounds(nodes, this.s.monotone !== undefined, nid => this.sums.get(nid)!)
    nodes.forEach((r, m) => {
      mask.set(r.featureMask, m * F)
      slots[m] = this.slots.slot(r.nid, e)
    })
    const out = createBuffer(this.device, M * SPLIT_WORDS * 4)
    e.release(out)
    e.run(
      splitEvaluateCall(
        {
          hist: this.slots.hist,
          cutPtrs: this.cutPtrs,
          featureMask: e.upload(mask),
          nodeSlots: e.upload(slots),
          nodeSums: e.upload(sums),
          scales: this.scales,
          out,
          featureKind: this.featureKind,
        },
        { nodes: M, features: F, maskPerNode: 1 },
        splitParams(this.s),
      ),
    )
    const [bytes] = await e.read([[out, M * SPLIT_WORDS * 4]])
    const words = new Uint32Array(bytes)
    await e.stage('evaluate', t0)
    return nodes.map((r, m) => {
      const res = decodeSplit(words, m)
      this.results.set(r.nid, res)
      return res
    })
  }

  async applySplits(splits: AppliedSplit[]): Promise<void> {
    if (splits.length === 0) return
    const t0 = performance.now(),
      e = this.enc
    for (const a of splits) {
      const res = this.results.get(a.nid)!
      this.sums.set(a.left, res.leftSum)
      this.sums.set(a.right, res.rightSum)
    }
    const K = Math.max(...splits.map(s => s.nid)) + 1
    this.res.features.forEach((fc, c) => {
      // Each feature chunk moves the rows of the nodes split on its features; children ids are
      // ≥ K, so a row moved by one chunk is left alone by the next.
      const mine = splits.filter(a => a.split.feature >= fc.f0 && a.split.feature < fc.f0 + fc.f)
      if (mine.length === 0) return
      const splitsBuf = e.upload(splitTable(mine, K, fc.f0))
      this.res.rows.forEach((rc, r) =>
        e.run(
          rowPartitionCall(
            { bins: this.res.tiles[r][c], missOff: fc.missOff, splits: splitsBuf, positions: rc.positions },
            { rows: rc.n, rowWords: rc.rowWords, nodes: K, classes: this.K },
          ),
        ),
      )
    })
    await e.stage('partition', t0)
  }

  releaseHistograms(nids: number[]): void {
    this.slots.release(nids)
  }

  async finishTrees(trees: Tree[], values: Float32Array): Promise<void> {
    const t0 = performance.now(),
      e = this.enc
    const leafValue = e.upload(values.slice())
    for (const c of this.res.rows)
      e.run(
        marginUpdateCall(
          { positions: c.positions, leafValue, margins: c.margins },
          { rows: c.n * this.K, nodes: values.length },
        ),
      )
    if (this.res.valid.length > 0) this.encodeValidTree(trees[0])
    const cols = this.s.validColumns
    if (this.validHost && cols) trees.forEach((t, k) => addTree(t, cols, this.validHost!, this.K, k))
    await e.stage('margins', t0)
  }

  /**
   * Validation margins += the tree's leaf values on raw features (as the CPU backend's addTree):
   * predict with base 0 writes each row's leaf value, then margin_update with identity positions
   * adds it — the same single f32 add per row and tree as the CPU.
   */
  private encodeValidTree(tree: Tree): void {
    const e = this.enc,
      packed = packTrees([tree])
    const nodes = e.upload(packed.nodes),
      catBits = e.upload(packed.catBits),
      treeOffsets = e.upload(packed.treeOffsets)
    for (const c of this.res.valid) {
      e.run(
        predictCall(
          { features: c.features, nodes, catBits, treeOffsets, out: c.leaf },
          { rows: c.v, features: this.F, trees: 1, maxDepth: packed.maxDepth },
          0,
        ),
      )
    }
    e.barrier()
    for (const c of this.res.valid)
      e.run(
        marginUpdateCall({ positions: c.identity, leafValue: c.leaf, margins: c.margins }, { rows: c.v, nodes: c.v }),
      )
  }

  async validMargins(): Promise<Float32Array | undefined> {
    if (!this.s.validColumns) return undefined
    if (this.validHost) return this.validHost
    const parts = await this.enc.read(this.res.valid.map(c => [c.margins, 4 * c.v]))
    return concat(parts)
  }

  async leafPositions(): Promise<Uint32Array> {
    const parts = await this.enc.read(this.res.rows.map(c => [c.positions, 4 * c.n]))
    const out = new Uint32Array(this.res.rows.reduce((s, c) => s + c.n, 0))
    let at = 0
    for (const b of parts) {
      out.set(new Uint32Array(b), at)
      at += b.byteLength / 4
    }
    return out
  }

  async trainMargins(): Promise<Float32Array> {
    return concat(await this.enc.read(this.res.rows.map(c => [c.margins, 4 * c.n * this.K])))
  }

  dispose(): void {
    this.enc.submit()
    void this.enc.closeScope().catch(() => undefined)
    destroyResident(this.res)
    this.slots.destroy()
    for (const b of [this.scales, this.rootSum, this.cutPtrs, this.featureKind, ...Object.values(this.sumTables)])
      b.destroy()
  }
}

/** Float32 concatenation of read-back parts. */
function concat(parts: ArrayBuffer[]): Float32Array {
  const out = new Float32Array(parts.reduce((s, b) => s + b.byteLength / 4, 0))
  let at = 0
  for (const b of parts) {
    out.set(new Float32Array(b), at)
    at += b.byteLength / 4
  }
  return out
}
