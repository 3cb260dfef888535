/**
 * The import graph of src/: no module imports itself through others (static imports, re-exports
 * and dynamic `import()` all count, type-only imports do not: they are erased; a worker started with `new URL('x.worker.ts', …)` is the root
 * of its own module graph, not an import), and the layers read one way: the rank layer imports no
 * model (families register their rank jobs from above).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = resolve(import.meta.dirname, '../../src')

/** Every .ts file under `dir`. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** Relative imports of each file (paths under src/, with their kind). */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>()
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8')
    const specs = [
      // `import type` / `export type` are erased at compile time: no runtime edge.
      ...[...text.matchAll(/^(?:import|export)(?!\s+type\b)\b[^'"]*?from\s+'(\.[^']+)'/gm)].map(m => m[1]),
      ...[...text.matchAll(/^import\s+'(\.[^']+)'/gm)].map(m => m[1]),
      ...[...text.matchAll(/\bimport\(\s*'(\.[^']+)'\s*\)/g)].map(m => m[1]),
    ]
    graph.set(
      relative(SRC, file),
      specs.filter(s => s.endsWith('.ts')).map(s => relative(SRC, resolve(dirname(file), s))),
    )
  }
  return graph
}

/** Strongly connected components of more than one file (or a file importing itself): the cycles. */
function cycles(graph: Map<string, string[]>): string[][] {
  let counter = 0
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    onStack = new Set<string>()
  const out: string[][] = []
  const visit = (v: string): void => {
    index.set(v, counter)
    low.set(v, counter++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(low.get(v)!, low.get(w)!))
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!))
    }
    if (low.get(v) !== index.get(v)) return
    const component: string[] = []
    let w: string
    do {
      w = stack.pop()!
      onStack.delete(w)
      component.push(w)
    } while (w !== v)
    if (component.length > 1 || graph.get(v)!.includes(v)) out.push(component.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return out
}

describe('src/ import graph', () => {
  const graph = importGraph()

  it('reads every module', () => {
    expect(graph.size).toBeGreaterThan(200)
    expect(graph.get('ranks/rank-service.ts')).toContain('ranks/jobs.ts')
  })

  it('has no import cycles', () => {
    expect(cycles(graph)).toEqual([])
  })

  it('finds a cycle when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('ranks/jobs.ts', [...g.get('ranks/jobs.ts')!, 'ranks/rank-service.ts'])
    expect(cycles(g)).toContainEqual(['ranks/jobs.ts', 'ranks/rank-service.ts'])
  })

  it('keeps the tuning engine pure: tune/ imports no GPU, store, sweep runtime, UI, worker or model module', () => {
    const offending = [...graph]
      .filter(([file]) => file.startsWith('tune/'))
      .flatMap(([file, deps]) =>
        deps.filter(d => /^(gpu|kernels|models|sweep|ui|workers|run|data|table)\//.test(d)).map(d => `${file} → ${d}`),
      )
    expect(offending).toEqual([])
  })

  it('finds an impure tune/ import when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('tune/space.ts', [...g.get('tune/space.ts')!, 'sweep/store-idb.ts'])
    const offending = [...g]
      .filter(([file]) => file.startsWith('tune/'))
      .flatMap(([, deps]) => deps.filter(d => d.startsWith('sweep/')))
    expect(offending).toEqual(['sweep/store-idb.ts'])
  })

  it('has one training run: the families plug into run/, and nothing but run/ and sweep/ calls a family', () => {
    expect(graph.has('run/pipeline.ts')).toBe(true)
    const callers = [...graph]
      .filter(([file]) => !file.startsWith('run/') && !file.startsWith('sweep/') && !file.startsWith('models/'))
      .flatMap(([file, deps]) => deps.filter(d => /^models\/[^/]+\/family\.ts$/.test(d)).map(d => `${file} → ${d}`))
    expect(callers).toEqual([])
  })

  it('keeps each model folder internal: outside models/, only a family module and the named GBDT entry points are imported', () => {
    // predict-run: the page's predict; xgboost-json + model-attributes: the CLI's Node-side model check before predict;
    // row-quantise: the loader workers' share of a GBDT run's quantisation (data/loader-service.ts);
    // model-file: the CLI reads and checks JSON / UBJSON model files; explain-run: the page's explain;
    // models/predict: the one prediction entry point of both families; recsys/export: the recommender's
    // model file as ONNX / safetensors (snaptrain export, the page's downloads) and the continue bundle's PyTorch files.
    const allowed =
      /^models\/(gbdt|recsys)\/family\.ts$|^models\/gbdt\/(predict-run|xgboost-json|model-attributes|model-file|row-quantise|explain-run)\.ts$|^models\/recsys\/export\.ts$|^models\/(rank-jobs|memory-budget|predict)\.ts$/
    const leaks = [...graph]
      .filter(([file]) => !file.startsWith('models/'))
      .flatMap(([file, deps]) =>
        deps.filter(d => d.startsWith('models/') && !allowed.test(d)).map(d => `${file} → ${d}`),
      )
    expect(leaks).toEqual([])
  })

  it('keeps the rank layer free of models', () => {
    const offending = [...graph]
      .filter(([file]) => file.startsWith('ranks/'))
      .flatMap(([file, deps]) => deps.filter(d => d.startsWith('models/')).map(d => `${file} → ${d}`))
    expect(offending).toEqual([])
  })
})

describe('src/ comments', () => {
  it('state decisions rather than cite the tracker (no "issue N" references)', () => {
    const citing = files(SRC).flatMap(file =>
      readFileSync(file, 'utf8')
        .split('\n')
        .map((line, i) => (/\bissue \d/i.test(line) ? `${relative(SRC, file)}:${i + 1}` : ''))
        .filter(Boolean),
    )
    expect(citing).toEqual([])
  })
})
