/**
 * `snaptrain export` in-process (main with a captured io, no browser): a tiny recommender trained
 * on a generated 3000-row clicks table (CPU reference, in Node) exports to safetensors (+
 * features.json beside it) and ONNX, byte for byte what the export module writes for the
 * checkpoint, and so are the page's downloads of a recommender sweep's best model; a truncated
 * model.bin and a clashing --out exit 2 naming the file. With
 * /usr/bin/python3 and numpy, the snippet's featurize (torch-module.ts, torch stubbed) plus a numpy
 * forward over model.safetensors scores the raw rows as the reference model does (within 1e-5).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createLoader } from '../../../src/data/loader.ts'
import { planScan } from '../../../src/data/plan.ts'
import { decodeCheckpoint, type Checkpoint } from '../../../src/models/recsys/checkpoint.ts'
import { exportModel, type ExportedModel } from '../../../src/models/recsys/export.ts'
import { featurize } from '../../../src/models/recsys/features.ts'
import { modelPredict } from '../../../src/models/recsys/model-ref.ts'
import { featuresJson } from '../../../src/models/recsys/safetensors.ts'
import { openSnapshot } from '../../../src/table/index.ts'
import { newSweepState } from '../../../src/tune/sweep-state.ts'
import { CONTINUE_RUNTIME_PY } from '../../../src/continue/runtime-py.ts'
import { CONTINUE_RUNTIME } from '../../../src/continue/spec.ts'
import { TORCH_MODULE } from '../../../src/continue/torch-module.ts'
import { sweepFile } from '../../../src/ui/sweep-files.ts'
import { downloadsFor } from '../../../src/ui/sweep-result.ts'
import type { SweepApi, SweepState } from '../../../src/ui/types.ts'
import { runMain } from '../../support/cli.ts'
import { tinyRecommender, type TinyRecommender } from '../../support/tiny-recommender.ts'

let fixture: TinyRecommender
let tmp: string
let url: string
let modelPath: string
let ck: Checkpoint
/** The export module's output for the checkpoint, each format encoded once for the file. */
const expected: Partial<Record<'onnx' | 'safetensors', Promise<ExportedModel>>> = {}
const exported = (format: 'onnx' | 'safetensors'): Promise<ExportedModel> =>
  (expected[format] ??= exportModel(ck, format))

beforeAll(async () => {
  fixture = await tinyRecommender('snaptrain-export-')
  ;({ tmp, url, modelPath } = fixture)
  ck = decodeCheckpoint(fixture.model)
}, 60_000)
afterAll(() => fixture?.close())

describe('snaptrain export', () => {
  it('--format safetensors writes the weights and features.json beside them', async () => {
    const out = join(tmp, 'st', 'model.safetensors')
    const r = await runMain(['export', '--model', modelPath, '--format', 'safetensors', '--out', out, '--json'])
    expect(r.code, r.stderr).toBe(0)
    const summary = JSON.parse(r.stdout.trim().split('\n').at(-1)!)
    expect(summary).toEqual({
      format: 'safetensors',
      out,
      bytes: readFileSync(out).length,
      features: join(tmp, 'st', 'features.json'),
    })
    expect(new Uint8Array(readFileSync(out))).toEqual((await exported('safetensors')).model)
    expect(JSON.parse(readFileSync(summary.features, 'utf8'))).toEqual(featuresJson(ck))
  })

  it('--format onnx writes the ONNX encoding of the checkpoint', async () => {
    const out = join(tmp, 'model.onnx')
    const r = await runMain(['export', '--model', modelPath, '--format', 'onnx', '--out', out])
    expect(r.code, r.stderr).toBe(0)
    expect(new Uint8Array(readFileSync(out))).toEqual((await exported('onnx')).model)
    expect(existsSync(join(tmp, 'features.json'))).toBe(false)
  })

  it('refuses a truncated model.bin and an --out named features.json, naming them', async () => {
    const cut = join(tmp, 'cut.bin')
    writeFileSync(cut, readFileSync(modelPath).subarray(0, 2000))
    const t = await runMain(['export', '--model', cut, '--format', 'onnx', '--out', join(tmp, 'cut.onnx')])
    expect(t.code).toBe(2)
    expect(t.stderr).toMatch(/--model .*cut\.bin: not a recsys checkpoint/)
    expect(existsSync(join(tmp, 'cut.onnx'))).toBe(false)
    const clash = join(tmp, 'clash', 'features.json')
    const c = await runMain(['export', '--model', modelPath, '--format', 'safetensors', '--out', clash])
    expect(c.code).toBe(2)
    expect(c.stderr).toMatch(/--out .*features\.json: features\.json is the name of the file written beside/)
    expect(existsSync(clash)).toBe(false)
  })
})

describe("the sweep result card's recommender downloads", () => {
  it('offers ONNX, safetensors and features.json for a recommender sweep only, built by the export module', async () => {
    const config = { model: 'recsys' as const, table: url, label: 'label', strategy: 'grid' as const, trials: 1 }
    const s: SweepState = {
      ...newSweepState(config, 'rec'),
      status: 'finished',
      best: { trial: 0, params: {}, metric: 0.6 },
    }
    const kinds = downloadsFor(s).map(([k]) => k)
    expect(kinds).toEqual(expect.arrayContaining(['model', 'model-onnx', 'model-safetensors', 'features']))
    expect(kinds).not.toContain('model-ubj')
    const gbdt = downloadsFor({ ...s, config: { ...s.config, model: 'gbdt' } }).map(([k]) => k)
    expect(gbdt).not.toContain('model-onnx')
    const model = Buffer.from(readFileSync(modelPath)).toString('base64')
    const lib = { sweepArtifacts: async () => ({ model }) } as unknown as SweepApi
    const bytes = async (kind: 'model-onnx' | 'model-safetensors' | 'features') => {
      const f = await sweepFile(lib, s, kind)
      return { name: f.name, bytes: new Uint8Array(await f.blob.arrayBuffer()) }
    }
    const onnx = await bytes('model-onnx')
    expect(onnx.name).toBe('sweep-rec-trial0-model.onnx')
    expect(onnx.bytes).toEqual((await exported('onnx')).model)
    const st = await bytes('model-safetensors')
    expect(st.name).toBe('sweep-rec-trial0-model.safetensors')
    expect(st.bytes).toEqual((await exported('safetensors')).model)
    const features = await bytes('features')
    expect(features.name).toBe('sweep-rec-trial0-features.json')
    expect(JSON.parse(new TextDecoder().decode(features.bytes))).toEqual(featuresJson(ck))
  })
})

const PYTHON = '/usr/bin/python3'
const hasNumpy = existsSync(PYTHON) && spawnSync(PYTHON, ['-c', 'import numpy'], { timeout: 10_000 }).status === 0

/**
 * The snippet module without torch: featurize() needs numpy (and the bundle's runtime beside it) only,
 * so torch is a stub whose from_numpy is the identity; a numpy forward reads model.safetensors by features.json.
 */
const NUMPY_FORWARD = `
import json, sys, types
torch = types.ModuleType("torch")
torch.nn = types.SimpleNamespace(Module=object)
torch.from_numpy = lambda a: a
sys.modules["torch"], sys.modules["torch.nn"] = torch, torch.nn
ns = {}
exec(open(sys.argv[1]).read(), ns)
np = ns["np"]
F = json.load(open(sys.argv[2]))
raw = open(sys.argv[3], "rb").read()
n = int.from_bytes(raw[:8], "little")
head = json.loads(raw[8:8 + n])
T = {k: np.frombuffer(raw[8 + n + v["data_offsets"][0]:8 + n + v["data_offsets"][1]], "<f4").reshape(v["shape"])
     for k, v in head.items() if k != "__metadata__"}
rows = [json.loads(l) for l in open(sys.argv[4])]
X = ns["featurize"]({k: [r.get(k) for r in rows] for k in rows[0]}, F)
s, d, bags = X[0], X[1], X[2:]
pooled = [(T["bag.%d.weight" % k][bags[2 * k]] * bags[2 * k + 1][:, :, None]).sum(1) for k in range(len(bags) // 2)]
x = np.concatenate([T["emb.%d.weight" % i][s[:, i]] for i in range(s.shape[1])] + pooled + [d], 1).astype(np.float64)
L = len(F["model"]["layers"])
for l in range(L + 1):
    x = x @ T["mlp.%d.weight" % (2 * l)].T.astype(np.float64) + T["mlp.%d.bias" % (2 * l)]
    if l < L:
        x = np.maximum(x, 0)
print(json.dumps((1 / (1 + np.exp(-x[:, 0]))).tolist()))
`

describe.skipIf(!hasNumpy)('the snippet featurize + a numpy forward over model.safetensors (python3 + numpy)', () => {
  it('scores the raw rows as the reference model does', async () => {
    const dir = join(tmp, 'py')
    const st = join(dir, 'model.safetensors')
    expect((await runMain(['export', '--model', modelPath, '--format', 'safetensors', '--out', st])).code).toBe(0)
    const rows = await runMain(['scan', '--table', join(tmp, 'data', 'clicks'), '--limit', '600'])
    expect(rows.code, rows.stderr).toBe(0)
    writeFileSync(join(dir, 'rows.jsonl'), rows.stdout)
    writeFileSync(join(dir, 'module.py'), TORCH_MODULE)
    writeFileSync(join(dir, CONTINUE_RUNTIME), CONTINUE_RUNTIME_PY) // the module imports the bundle's runtime (value hashes)
    writeFileSync(join(dir, 'forward.py'), NUMPY_FORWARD)
    const py = spawnSync(
      PYTHON,
      [join(dir, 'forward.py'), join(dir, 'module.py'), join(dir, 'features.json'), st, join(dir, 'rows.jsonl')],
      { encoding: 'utf8', timeout: 60_000, maxBuffer: 64 << 20 },
    )
    expect(py.status, py.stderr).toBe(0)
    const theirs = JSON.parse(py.stdout) as number[]
    // The reference model on the checkpoint's weights over the same first rows in table order.
    const plan = await planScan(await openSnapshot(url), {})
    const spec: Record<string, 'hash32' | 'float32' | 'fixed_list' | 'hash_list'> = { label: 'float32' }
    for (const f of ck.layout.sparse) spec[f.name] = 'hash32'
    for (const f of ck.layout.dense) spec[f.name] = 'float32'
    for (const f of ck.layout.lists) spec[f.name] = 'fixed_list'
    for (const f of ck.layout.bags ?? []) spec[f.name] = 'hash_list'
    const loader = createLoader(plan, { assign: { epoch: 0, worldSize: 1, rank: 0 }, batchSize: 600, spec, workers: 0 })
    const ours: number[] = []
    for await (const b of loader.batches()) {
      ours.push(...modelPredict(ck.shape, ck.state.weights, featurize(ck.layout, b)))
      if (ours.length >= 600) break
    }
    await loader.close()
    expect(theirs).toHaveLength(600)
    let worst = 0
    theirs.forEach((p, i) => {
      worst = Math.max(worst, Math.abs(p - ours[i]))
    })
    expect(worst).toBeLessThanOrEqual(1e-5)
  }, 60_000)
})
