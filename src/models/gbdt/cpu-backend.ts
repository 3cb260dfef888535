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
import { gradient } from '../../kernels/gbdt/gradient.ref.ts'
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
import { rowSampled } from './sampling.ts'
import { addTree } from './predict.ts'
import { kernelObjective } from './objective.ts'

/** Creates the CPU backend (a BackendFactory). */
export function createCpuBackend(setup: BackendSetup): GbdtBackend {
  return new CpuBackend(setup)
}

class CpuBackend implements GbdtBackend {
  private readonly n: number
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
    this.margins = s.initMargins?.train.slice() ?? new Float32Array(this.n).fill(s.baseMargin)
    if (s.validColumns)
      this.validM = s.initMargins?.valid?.slice() ?? new Float32Array(s.validColumns[0]?.length ?? 0).fill(s.baseMargin)
    this.positions = new Uint32Array(this.n)
    this.gpair = new Float32Array(2 * this.n)
    this.qgpair = new Int32Array(2 * this.n)
    this.kinds = featureKinds(s.cuts.cutPtrs, s.cuts.categorical, s.params.max_cat_to_onehot, s.monotone)
  }

  beginRound(round: number): NodeSums | Promise<NodeSums> {
    const p = this.s.params,
      r0 = this.s.rowOffset ?? 0
    for (let i = 0; i < this.n; i++) this.positions[i] = rowSampled(p.seed, round, r0 + i, p.subsample) ? 0 : ROW_UNUSED
    const objective = kernelObjective(p)
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
    quantise(this.gpair, this.n, this.qgpair, this.scales)
    return this.rootSums([this.sumQ(0), this.sumQ(1)])
  }

  /** beginRound's rest on one rank: global maxima for the scales, global root sums. */
  private async beginRoundReduced(reduce: BackendReduce): Promise<NodeSums> {
    const [mg, mh] = await reduce.max(Float32Array.from(quantiseMax(this.gpair, this.n)))
    quantiseWithMax(this.gpair, this.n, this.qgpair, this.scales, mg, mh)
    const [qg, qh] = await reduce.sum(Float64Array.of(this.sumQ(0), this.sumQ(1)))
    return this.rootSums([qg, qh])
  }

  /** Σ of quantised column `c` (0 = g, 1 = h) over this backend's rows (exact in a double). */
  private sumQ(c: number): number {
    let q = 0
    for (let i = 0; i < this.n; i++) q += this.qgpair[2 * i + c]
    return q
  }

  /** Starts the tree: every row at the root, whose exact sums are `qg`, `qh`. */
  private rootSums([qg, qh]: number[]): NodeSums {
    // Unsampled rows carry zero gradients but are partitioned too, so every row reaches a leaf.
    this.positions.fill(0)
    this.sums.clear()
    this.results.clear()
    this.slotOf.clear()
    this.freeSlots = []
    this.nextSlot = 0
    const root = new Uint32Array(4)
    putInt64(root, 0, qg)
    putInt64(root, 2, qh)
    this.sums.set(0, root)
    return { g: qg / this.scales[2], h: qh / this.scales[3] }
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

  finishTree(tree: Tree): void {
    marginUpdate(this.positions, tree.splitCondition, this.margins, this.n, tree.left.length)
    if (this.validM && this.s.validColumns) addTree(tree, this.s.validColumns, this.validM)
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
