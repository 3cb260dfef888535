/**
 * The recommender module's featurizer (torch-module.ts TORCH_MODULE) takes its id and bag-item hashes
 * from the bundle's runtime (runtime-py.ts value_hashes): one hash path in the generated Python. Run
 * as written with numpy (torch stubbed: featurize needs numpy only) beside snaptrain_continue.py,
 * over edge values handed over as Python lists and as numpy arrays (int64, bool, masked, object),
 * every sparse id and bag item equals snaptrain's loader hash (decode-values.ts toHash) mod buckets,
 * and the distinct counts of feature_stats are snaptrain's.
 */
import { describe, expect, it } from 'vitest'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CONTINUE_RUNTIME_PY } from '../../../src/continue/runtime-py.ts'
import { CONTINUE_RUNTIME } from '../../../src/continue/spec.ts'
import { TORCH_MODULE } from '../../../src/continue/torch-module.ts'
import { toHash } from '../../../src/data/decode-values.ts'
import { PYTHON, pythonPeer } from '../../support/peers.ts'

const peer = pythonPeer(['numpy'])

const STRINGS = ['a', 'é', '日本語', '', 'abcd', 'abcde', 'x'.repeat(17), 'emoji 😀']
const INTS = [0, 1, -1, 7, 2 ** 31, -(2 ** 31) - 5, 2 ** 53 - 1, -(2 ** 53) + 1, 123456789012]
const BUCKETS = 1009

/** Featurizes the columns of argv[2] (JSON) as lists and as numpy arrays; prints ids, bag items and distinct counts. */
const DRIVER = `
import json, sys, types
torch = types.ModuleType("torch")
torch.nn = types.SimpleNamespace(Module=object)
torch.from_numpy = lambda a: a
sys.modules["torch"], sys.modules["torch.nn"] = torch, torch.nn
ns = {}
exec(open(sys.argv[1]).read(), ns)
np = ns["np"]
cols = json.load(open(sys.argv[2]))
F = dict(columns=[dict(name=n, kind="sparse", buckets=${BUCKETS}) for n in ("s", "i", "b")]
         + [dict(name="bag", kind="bag", buckets=${BUCKETS}, pooling="sum")])
arrays = dict(s=np.array(cols["s"], dtype=object), i=np.ma.MaskedArray(np.array(cols["i"], np.int64), mask=False),
              b=np.array(cols["b"]), bag=np.empty(len(cols["bag"]), dtype=object))
for k, r in enumerate(cols["bag"]):
    arrays["bag"][k] = r
out = {}
for style, c in (("lists", cols), ("arrays", arrays)):
    X = ns["featurize"](c, F)
    idx, w = X[2], X[3]
    stats = ns["feature_stats"](c, dict(sparse=["s", "i", "b"], bags=["bag"], dense=[], lists=[]), {})
    out[style] = dict(ids=X[0].T.tolist(), bag=[[int(i) for i, x in zip(ir, wr) if x > 0] for ir, wr in zip(idx.tolist(), w.tolist())],
                      distinct={k: len(v) for k, v in list(stats["sparse"].items()) + list(stats["bags"].items())})
print(json.dumps(out))
`

describe.runIf(peer.run)('TORCH_MODULE featurize: hashes from the runtime (python3 + numpy)', () => {
  it("sparse ids and bag items equal snaptrain's toHash mod buckets, from lists and from numpy arrays", () => {
    peer.require()
    const dir = mkdtempSync(join(tmpdir(), 'st-torch-hash-'))
    try {
      const n = 40
      const s = Array.from({ length: n }, (_, i) => STRINGS[(i * 3) % STRINGS.length])
      const ints = Array.from({ length: n }, (_, i) => INTS[(i * 5) % INTS.length])
      const b = Array.from({ length: n }, (_, i) => i % 3 === 0)
      const bag = Array.from({ length: n }, (_, i) =>
        i % 7 === 0
          ? null
          : Array.from({ length: i % 4 }, (_, j) => (j === 1 && i % 2 ? null : INTS[(i + j) % INTS.length])),
      )
      writeFileSync(join(dir, 'module.py'), TORCH_MODULE)
      writeFileSync(join(dir, CONTINUE_RUNTIME), CONTINUE_RUNTIME_PY)
      writeFileSync(join(dir, 'driver.py'), DRIVER)
      writeFileSync(join(dir, 'cols.json'), JSON.stringify({ s, i: ints, b, bag }))
      const py = spawnSync(PYTHON, [join(dir, 'driver.py'), join(dir, 'module.py'), join(dir, 'cols.json')], {
        encoding: 'utf8',
        timeout: 60_000,
      })
      expect(py.status, py.stderr).toBe(0)
      const out = JSON.parse(py.stdout) as Record<
        string,
        { ids: number[][]; bag: number[][]; distinct: Record<string, number> }
      >
      const ids = (values: unknown[]) => values.map(v => toHash(typeof v === 'number' ? BigInt(v) : v) % BUCKETS)
      const want = [ids(s), ids(ints), ids(b)]
      const wantBag = bag.map(r => (r ? ids(r.filter(v => v !== null)) : []))
      const distinct = (h: number[]) => new Set(h).size
      for (const style of ['lists', 'arrays']) {
        expect(out[style].ids, style).toEqual(want)
        expect(out[style].bag, style).toEqual(wantBag)
        const hashes = (values: unknown[]) => values.map(v => toHash(typeof v === 'number' ? BigInt(v) : v))
        expect(out[style].distinct, style).toEqual({
          s: distinct(hashes(s)),
          i: distinct(hashes(ints)),
          b: 2,
          bag: distinct(hashes(bag.flatMap(r => r ?? []).filter(v => v !== null))),
        })
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)
})
