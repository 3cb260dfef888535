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
    // loader-tasks: the families' loader-worker tasks, imported by the loader worker's entry;
    // model-file: the CLI reads and checks JSON / UBJSON model files; explain-run: the page's explain;
    // constraints: the continue jobs write a run's constraints in XGBoost's forms over the model's features;
    // models/predict: the one prediction entry point of every family; models/registry: the family registry every shell reads; recsys/export: the recommender's
    // model file as ONNX / safetensors (snaptrain export, the page's downloads) and the continue bundle's PyTorch files.
    const allowed =
      /^models\/[^/]+\/family\.ts$|^models\/gbdt\/(predict-run|xgboost-json|model-attributes|model-file|explain-run|constraints)\.ts$|^models\/recsys\/export\.ts$|^models\/(rank-jobs|loader-tasks|memory-budget|predict|registry)\.ts$/
    const leaks = [...graph]
      .filter(([file]) => !file.startsWith('models/'))
      .flatMap(([file, deps]) =>
        deps.filter(d => d.startsWith('models/') && !allowed.test(d)).map(d => `${file} → ${d}`),
      )
    expect(leaks).toEqual([])
  })

  /** Imports of a governed table's per-kind client (its resolver, its catalog, its session) from outside the table sources. */
  const sourceLeaks = (g: Map<string, string[]>): string[] => {
    const perKind = /^(storage\/(unity-catalog|s3-resolver)|sharing\/access)\.ts$/
    return [...g]
      .filter(([file]) => !file.startsWith('sources/'))
      .flatMap(([file, deps]) =>
        deps
          // A client's own folder may use it, but not re-export it through the folder's index.
          .filter(d => perKind.test(d) && (dirname(d) !== dirname(file) || file.endsWith('/index.ts')))
          .map(d => `${file} → ${d}`),
      )
  }

  it('tells table sources apart in src/sources only: nothing else imports a governed kind’s client', () => {
    expect(graph.get('sources/index.ts')).toContain('sources/s3/source.ts')
    expect(sourceLeaks(graph)).toEqual([])
  })

  it('finds a per-kind client imported outside src/sources when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('run/config.ts', [...g.get('run/config.ts')!, 'storage/s3-resolver.ts'])
    g.set('sharing/index.ts', [...g.get('sharing/index.ts')!, 'sharing/access.ts'])
    expect(sourceLeaks(g)).toEqual(['run/config.ts → storage/s3-resolver.ts', 'sharing/index.ts → sharing/access.ts'])
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

/** Every import of each file under src/, type-only ones included: relative ones as paths under src/, packages as named. */
function allImports(): Map<string, string[]> {
  const out = new Map<string, string[]>()
  for (const file of files(SRC)) {
    const text = readFileSync(file, 'utf8')
    const specs = [
      ...[...text.matchAll(/^(?:import|export)\b[^'"]*?from\s+'([^']+)'/gm)].map(m => m[1]),
      ...[...text.matchAll(/^import\s+'([^']+)'/gm)].map(m => m[1]),
      ...[...text.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map(m => m[1]),
    ]
    out.set(
      relative(SRC, file),
      specs.map(s => (s.startsWith('.') ? relative(SRC, resolve(dirname(file), s)) : s)),
    )
  }
  return out
}

/** `file → import` for every import of a file matching `from` that matches `to`. */
function edges(graph: Map<string, string[]>, from: RegExp, to: RegExp): string[] {
  return [...graph]
    .filter(([file]) => from.test(file))
    .flatMap(([file, deps]) => deps.filter(d => to.test(d)).map(d => `${file} → ${d}`))
}

/** Worker entries (the top of a worker's module graph) may import the registrations of the families' worker tasks. */
const WORKER_ENTRY_REGISTRATIONS = /^workers\/[^/]+\.worker\.ts → models\/(rank-jobs|loader-tasks)\.ts$/

describe('src/ Parquet layer and data path (type-only imports count)', () => {
  const graph = allImports()
  const TABLE = /^table\//,
    NOT_PARQUET = /^(?!parquet\/)/,
    HYPARQUET = /^hyparquet(-compressors)?(\/|$)/,
    DATA_OR_WORKERS = /^(data|workers)\//

  it('reads the Parquet layer', () => {
    expect(graph.get('parquet/file.ts')).toContain('hyparquet')
    expect(graph.get('table/rows.ts')).toContain('parquet/file.ts')
  })

  it('table/ never imports data/', () => {
    expect(edges(graph, TABLE, /^data\//)).toEqual([])
  })

  it('finds a table/ → data/ import when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('table/rows.ts', [...g.get('table/rows.ts')!, 'data/units.ts'])
    expect(edges(g, TABLE, /^data\//)).toEqual(['table/rows.ts → data/units.ts'])
  })

  it('nothing outside src/parquet/ imports hyparquet or hyparquet-compressors', () => {
    expect(edges(graph, NOT_PARQUET, HYPARQUET)).toEqual([])
    expect(edges(graph, /^parquet\//, HYPARQUET).length).toBeGreaterThan(0)
  })

  it('finds a hyparquet import outside src/parquet/ when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('data/plan.ts', [...g.get('data/plan.ts')!, 'hyparquet/src/utils.js'])
    g.set('table/checkpoint.ts', [...g.get('table/checkpoint.ts')!, 'hyparquet-compressors'])
    expect(edges(g, NOT_PARQUET, HYPARQUET).sort()).toEqual([
      'data/plan.ts → hyparquet/src/utils.js',
      'table/checkpoint.ts → hyparquet-compressors',
    ])
  })

  it('the Parquet layer imports neither table/ nor data/', () => {
    expect(edges(graph, /^parquet\//, /^(table|data)\//)).toEqual([])
  })

  it("data/ and workers/ import no models/ (worker entries only register the families' tasks)", () => {
    const leaks = edges(graph, DATA_OR_WORKERS, /^models\//).filter(e => !WORKER_ENTRY_REGISTRATIONS.test(e))
    expect(leaks).toEqual([])
    expect(graph.get('workers/loader.worker.ts')).toContain('models/loader-tasks.ts')
  })

  it('finds a models/ import in data/ or workers/ when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('workers/loader.api.ts', [...g.get('workers/loader.api.ts')!, 'models/gbdt/types.ts'])
    g.set('data/loader-service.ts', [...g.get('data/loader-service.ts')!, 'models/gbdt/row-quantise.ts'])
    const leaks = edges(g, DATA_OR_WORKERS, /^models\//).filter(e => !WORKER_ENTRY_REGISTRATIONS.test(e))
    expect(leaks.sort()).toEqual([
      'data/loader-service.ts → models/gbdt/row-quantise.ts',
      'workers/loader.api.ts → models/gbdt/types.ts',
    ])
  })
})

describe('src/ one driver: run/ knows no family, the families and eval/ stand apart (type-only imports count)', () => {
  const graph = allImports()
  // run/ reads the family registry (loadFamily) and, type-only, the memory budget of the run config
  // (models/memory-budget.ts MemoryBudget): both name no family; every other models/ file is a family's.
  const RUN_MAY = /^models\/(registry|memory-budget)\.ts$/
  const runLeaks = (g: Map<string, string[]>): string[] =>
    edges(g, /^run\//, /^models\//).filter(e => !RUN_MAY.test(e.split(' → ')[1]!))
  /** Imports from one family's folder into another's (models/<A>/ → models/<B>/, A ≠ B). */
  const crossFamily = (g: Map<string, string[]>): string[] =>
    edges(g, /^models\/[^/]+\//, /^models\/[^/]+\//).filter(e => {
      const [from, to] = e.split(' → ')
      return from!.split('/')[1] !== to!.split('/')[1]
    })
  const evalLeaks = (g: Map<string, string[]>): string[] => edges(g, /^eval\//, /^models\//)

  it('run/ imports no family (only the registry and the memory budget type)', () => {
    expect(graph.get('run/pipeline.ts')).toContain('models/registry.ts')
    expect(runLeaks(graph)).toEqual([])
  })

  it('finds a family imported by run/ when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('run/session.ts', [...g.get('run/session.ts')!, 'models/gbdt/gpu-backend.ts'])
    expect(runLeaks(g)).toEqual(['run/session.ts → models/gbdt/gpu-backend.ts'])
  })

  it('no family imports another: nothing in models/<A>/ imports models/<B>/ for A ≠ B', () => {
    expect(graph.get('models/recsys/metrics.ts')).toContain('eval/metrics.ts')
    expect(graph.get('models/gblinear/rows.ts')).toContain('eval/dataset.ts')
    expect(crossFamily(graph)).toEqual([])
  })

  it('finds an import between the families when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('models/recsys/family.ts', [...g.get('models/recsys/family.ts')!, 'models/gbdt/objective.ts'])
    g.set('models/gbdt/family.ts', [...g.get('models/gbdt/family.ts')!, 'models/recsys/metrics.ts'])
    g.set('models/gblinear/rows.ts', [
      ...g.get('models/gblinear/rows.ts')!,
      'models/gbdt/features.ts',
      'models/gblinear/train.ts',
      'models/registry.ts',
    ])
    expect(crossFamily(g).sort()).toEqual([
      'models/gbdt/family.ts → models/recsys/metrics.ts',
      'models/gblinear/rows.ts → models/gbdt/features.ts',
      'models/recsys/family.ts → models/gbdt/objective.ts',
    ])
  })

  it('eval/ imports no models/', () => {
    expect(graph.get('eval/labels.ts')).toContain('data/loader.ts')
    expect(evalLeaks(graph)).toEqual([])
  })

  it('finds a models/ import in eval/ when there is one (the check can fail)', () => {
    const g = new Map(graph)
    g.set('eval/metrics.ts', [...g.get('eval/metrics.ts')!, 'models/gbdt/types.ts'])
    expect(evalLeaks(g)).toEqual(['eval/metrics.ts → models/gbdt/types.ts'])
  })
})
