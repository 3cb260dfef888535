/**
 * CPU backend: the driver's per-round operations done by the kernels' plain-TS references
 * (src/kernels/gbdt/*.ref.ts), on the same buffer layouts the GPU uses — so the CPU trainer is
 * the executable specification of the GPU one, and both produce the same trees.
 * N = rows, F = features, B = total bins, S = histogram slots.
 */
import type {
  BackendReduce,
  BackendSetup,
  EvalRequest,
  GbdtBackend,
  NodeSums,
  AppliedSplit,
  SubtractJob,
} from './backend.ts'
import type { SplitCandidate, Tree } from './types.ts'
import { gradient, softmaxGradient } from '../../kernels/gbdt/gradient.ref.ts'
import { ROW_UNUSED, decodeSplit, featureKinds, SPLIT_WORDS, type SplitResult } from '../../kernels/gbdt/layout.ts'
import { quantise, quantiseMax } from '../../kernels/gbdt/quantise.ref.ts'
import { allreducePairs, quantiseWithMax } from './hist-reduce.ts'
import { histogramBuild } from '../../kernels/gbdt/histogram_build.ref.ts'
import { histogramSubtract } from '../../kernels/gbdt/histogram_subtract.ref.ts'
import { splitEvaluate } from '../../kernels/gbdt/split_evaluate.ref.ts'
import { putInt64 } from '../../kernels/gbdt/fixed-point.ts'
import { rowPartition } from '../../kernels/gbdt/row_partition.ref.ts'
import { splitTable } from './split-table.ts'
import { nodeSumsWithBounds, splitParams } from './split-inputs.ts'
import { marginUpdate } from '../../kernels/gbdt/margin_update.ref.ts'
import { rowSampled, treeIndex } from './sampling.ts'
import { addTree } from './predict.ts'
import { kernelObjective, outputsOf } from './objective.ts'

/** Creates the CPU backend (a BackendFactory). */
export function createCpuBackend(setup: BackendSetup): GbdtBackend {
  return new CpuBackend(setup)
}

class CpuBackend implements GbdtBackend {
  private readonly n: number
  /** Outputs per row (multiclass: K class trees per round); margins, pairs and positions are N × K. */
  private readonly K: number
  private readonly B: number
  private readonly margins: Float32Array
  private readonly validM?: Float32Array
  private readonly positions: Uint32Array
  private readonly gpair: Float32Array
  private readonly qgpair: Int32Array
  private readonly scales = new Float32Array(4)
  private hist = new Uint32Array(0)
  private readonly slotOf = new Map<number, number>()
  private freeSlots: number[] = []
  private nextSlot = 0
  /** Exact [gLo, gHi, hLo, hHi] totals per node id of the current tree. */
  private readonly sums = new Map<number, Uint32Array>()
  /** Last evaluation result per node id: its children's exact sums. */
  private readonly results = new Map<number, SplitResult>()
  /** split_evaluate's featureKind: numeric, one-hot or partition per feature. */
  private readonly kinds: Uint32Array

  constructor(private readonly s: BackendSetup) {
    this.n = s.binned.rows
    this.B = s.cuts.cutPtrs[s.cuts.cutPtrs.length - 1]
    this.K = outputsOf(s.params)
    const nk = this.n * this.K
    this.margins = s.initMargins?.train.slice() ?? new Float32Array(nk).fill(s.baseMargin)
    if (s.validColumns)
      this.validM =
        s.initMargins?.valid?.slice() ?? new Float32Array((s.validColumns[0]?.length ?? 0) * this.K).fill(s.baseMargin)
    this.positions = new Uint32Array(nk)
    this.gpair = new Float32Array(2 * nk)
    this.qgpair = new Int32Array(2 * nk)
    this.kinds = featureKinds(s.cuts.cutPtrs, s.cuts.categorical, s.params.max_cat_to_onehot, s.monotone)
  }

  beginRound(round: number): NodeSums[] | Promise<NodeSums[]> {
    const p = this.s.params,
      r0 = this.s.rowOffset ?? 0,
      K = this.K,
      nk = this.n * K
    for (let k = 0; k < K; k++) {
      const tree = treeIndex(round, k, K)
      for (let i = 0; i < this.n; i++)
        this.positions[i * K + k] = rowSampled(p.seed, tree, r0 + i, p.subsample) ? k : ROW_UNUSED
    }
    const objective = kernelObjective(p)
    if (K > 1)
      softmaxGradient(this.margins, this.s.labels, this.s.weights ?? null, this.positions, this.gpair, this.n, K)
    else if (this.s.hostGradients) {
      this.gpair.set(this.s.hostGradients(round, this.margins, r0))
      for (let i = 0; i < this.n; i++) if (this.positions[i] === ROW_UNUSED) this.gpair.fill(0, 2 * i, 2 * i + 2)
    } else
      gradient(
        this.margins,
        this.s.labels,
        this.s.weights ?? null,
        this.positions,
        this.gpair,
        this.n,
        objective.id,
        p.scale_pos_weight,
        objective.param,
      )
    if (this.s.reduce) return this.beginRoundReduced(this.s.reduce)
    quantise(this.gpair, nk, this.qgpair, this.scales)
    return this.rootSums(this.rootQ())
  }

  /** beginRound's rest on one rank: global maxima for the scales, global root sums. */
  private async beginRoundReduced(reduce: BackendReduce): Promise<NodeSums[]> {
    const nk = this.n * this.K
    const [mg, mh] = await reduce.max(Float32Array.from(quantiseMax(this.gpair, nk)))
    quantiseWithMax(this.gpair, nk, this.qgpair, this.scales, mg, mh)
    return this.rootSums(Array.from(await reduce.sum(Float64Array.from(this.rootQ()))))
  }

  /** [Σ qg, Σ qh] of each class over this backend's rows (exact in a double), 2·K values. */
  private rootQ(): number[] {
    const K = this.K,
      q = new Array<number>(2 * K).fill(0)
    for (let e = 0; e < this.n * K; e++) {
      q[2 * (e % K)] += this.qgpair[2 * e]
      q[2 * (e % K) + 1] += this.qgpair[2 * e + 1]
    }
    return q
  }

  /** Starts the round's trees: every row at its class's root k, whose exact sums are q[2k], q[2k+1]. */
  private rootSums(q: number[]): NodeSums[] {
    // Unsampled rows carry zero gradients but are partitioned too, so every row reaches a leaf.
    for (let e = 0; e < this.positions.length; e++) this.positions[e] = e % this.K
    this.sums.clear()
    this.results.clear()
    this.slotOf.clear()
    this.freeSlots = []
    this.nextSlot = 0
    return Array.from({ length: this.K }, (_, k) => {
      const root = new Uint32Array(4)
      putInt64(root, 0, q[2 * k])
      putInt64(root, 2, q[2 * k + 1])
      this.sums.set(k, root)
      return { g: q[2 * k] / this.scales[2], h: q[2 * k + 1] / this.scales[3] }
    })
  }

  private slot(nid: number): number {
    let slot = this.slotOf.get(nid)
    if (slot !== undefined) return slot
    slot = this.freeSlots.pop() ?? this.nextSlot++
    this.slotOf.set(nid, slot)
    const need = (slot + 1) * this.B * 4
    if (this.hist.length < need) {
      const grown = new Uint32Array(Math.max(need, this.hist.length * 2))
      grown.set(this.hist)
      this.hist = grown
    }
    this.hist.fill(0, slot * this.B * 4, (slot + 1) * this.B * 4)
    return slot
  }

  buildHistograms(nids: number[]): void | Promise<void> {
    if (nids.length === 0) return
    const maxNid = Math.max(...nids)
    const nodeSlot = new Int32Array(maxNid + 1).fill(-1)
    for (const nid of nids) nodeSlot[nid] = this.slot(nid)
    const { binned, cuts } = this.s
    histogramBuild(
      binned.bins,
      binned.missOff,
      cuts.cutPtrs,
      this.qgpair,
      this.positions,
      nodeSlot,
      this.hist,
      this.n,
      binned.features,
      binned.rowWords,
      this.B,
      this.K,
    )
    if (this.s.reduce) return this.reduceSlots(nids, this.s.reduce)
  }

  /** Replaces the built slots of `nids` by their sums over ranks (one allreduce for all). */
  private async reduceSlots(nids: number[], reduce: BackendReduce): Promise<void> {
    const W = this.B * 4,
      local = new Uint32Array(nids.length * W)
    nids.forEach((nid, m) => local.set(this.hist.subarray(this.slot(nid) * W, (this.slot(nid) + 1) * W), m * W))
    const global = await allreducePairs(local, reduce)
    nids.forEach((nid, m) => this.hist.set(global.subarray(m * W, (m + 1) * W), this.slot(nid) * W))
  }

  subtractHistograms(jobs: SubtractJob[]): void {
    const triples = new Uint32Array(jobs.length * 3)
    jobs.forEach((j, t) => triples.set([this.slot(j.parent), this.slot(j.built), this.slot(j.sibling)], 3 * t))
    histogramSubtract(triples, this.hist, jobs.length, this.B)
  }

  evaluateSplits(nodes: EvalRequest[]): SplitCandidate[] {
    const F = this.s.binned.features,
      M = nodes.length
    const mask = new Uint32Array(M * F),
      slots = new Uint32Array(M),
      sums = nodeSumsWithBounds(nodes, this.s.monotone !== undefined, nid => this.sums.get(nid)!)
    nodes.forEach((r, m) => {
      mask.set(r.featureMask, m * F)
      slots[m] = this.slot(r.nid)
    })
    const out = new Uint32Array(M * SPLIT_WORDS)
    splitEvaluate(
      this.hist,
      this.s.cuts.cutPtrs,
      mask,
      slots,
      sums,
      this.scales,
      out,
      { nodes: M, features: F, maskPerNode: 1 },
      splitParams(this.s),
      this.kinds,
    )
    return nodes.map((r, m) => {
      const res = decodeSplit(out, m)
      this.results.set(r.nid, res)
      return res
    })
  }

  applySplits(splits: AppliedSplit[]): void {
    if (splits.length === 0) return
    const K = Math.max(...splits.map(s => s.nid)) + 1
    const table = splitTable(splits, K)
    for (const a of splits) {
      const res = this.results.get(a.nid)!
      this.sums.set(a.left, res.leftSum)
      this.sums.set(a.right, res.rightSum)
    }
    const { binned } = this.s
    rowPartition(binned.bins, binned.missOff, table, this.positions, {
      rows: this.n,
      rowWords: binned.rowWords,
      nodes: K,
      classes: this.K,
    })
  }

  releaseHistograms(nids: number[]): void {
    for (const nid of nids) {
      const slot = this.slotOf.get(nid)
      if (slot === undefined) continue
      this.slotOf.delete(nid)
      this.freeSlots.push(slot)
    }
  }

  finishTrees(trees: Tree[], values: Float32Array): void {
    marginUpdate(this.positions, values, this.margins, this.n * this.K, values.length)
    const cols = this.s.validColumns,
      m = this.validM,
      K = this.K
    if (!m || !cols) return
    trees.forEach((tree, k) => addTree(tree, cols, m, K, k))
  }

  leafPositions(): Uint32Array {
    return this.positions
  }

  validMargins(): Float32Array | undefined {
    return this.validM
  }

  trainMargins(): Float32Array {
    return this.margins
  }

  dispose(): void {
    this.hist = new Uint32Array(0)
  }
}
