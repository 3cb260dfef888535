/**
 * Reference for histogram_build_wg.wgsl: the workgroup-privatised variant computes exactly the
 * same histogram as histogram_build.wgsl (integer sums are order-independent), so its reference
 * is the same function. The chunk table it takes is a dispatch detail and has no effect here.
 */
export { histogramBuild as histogramBuildWg } from './histogram_build.ref.ts'
