/**
 * The bundle's Python runtime (snaptrain_continue.py, src/continue/runtime-py.ts) against snaptrain
 * itself, on real tables (a marketing table with strings and nulls, a small clicks table with
 * nullable floats and list columns, and two conformance tables written by Spark with every
 * primitive type incl. binary, decimal, date, timestamp and nulls): `read_shard` over K = 1 and
 * K = 3 shards (`snaptrain scan --format npy --mode all`) gives the rows `scan --format jsonl`
 * prints, in the same order; `row_keys` / `validation_mask` equal snaptrain's loader
 * (src/data/row-keys-read.ts, row-key.ts); `gbdt_matrix` codes are dictionary positions with
 * unseen and null values missing.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, test } from 'vitest'
import { writeMarketing } from '../../../tools/datagen/marketing.ts'
import { writeClicks } from '../../../tools/datagen/clicks.ts'
import { CONTINUE_RUNTIME_PY } from '../../../src/continue/runtime-py.ts'
import { REPO, runCli, runProcess } from '../../support/cli.ts'
import { PYTHON, pythonPeer } from '../../support/peers.ts'
import { tableRowKeys } from '../../support/row-keys-ts.ts'

const peer = pythonPeer(['numpy'])
const ENV = { SNAPTRAIN: `${process.execPath} ${join(REPO, 'bin/snaptrain.js')}`, SNAPTRAIN_BUILD_CHECK: '0' }
const SPLIT = { seed: 5, fraction: 0.4 }

/** Reads the table through the runtime: K = 1, K = 3 concatenated, keys, split, a GBDT matrix. */
const READ_PY = `
import base64, json, math, sys
sys.path.insert(0, sys.argv[1])
import numpy as np, snaptrain_continue as sc
spec = sc.load_spec(sys.argv[1])
def norm(v):
    if v is None: return None
    if isinstance(v, (bytes, bytearray)): return base64.b64encode(v).decode()
    if isinstance(v, list): return [norm(x) for x in v]
    if isinstance(v, float) and math.isnan(v): return "NaN"
    return v
def rows(cols):
    out = {}
    for name, c in cols.items():
        if isinstance(c, np.ma.MaskedArray):
            out[name] = [None if m else int(x) for x, m in zip(c.data, np.ma.getmaskarray(c))]
        elif c.dtype.kind == "f":
            out[name] = [None if n else norm(float(x)) for x, n in zip(c, cols.float_nulls[name])]
        else:
            out[name] = [norm(x) for x in c]
    return out
one = sc.read_shard(spec)
parts = [sc.read_shard(spec, shards=3, shard=r) for r in range(3)]
three = {k: sum((rows(p)[k] for p in parts), []) for k in one}
m = sc.gbdt_matrix(spec, one) if spec["features"] else np.zeros((0, 0))
print(json.dumps({"one": rows(one), "three": three, "sizes": [len(sc.label(spec, p)) for p in parts],
  "keys": sc.row_keys(spec, one).tolist(), "valid": sc.validation_mask(spec, one).astype(int).tolist(),
  "matrix": [[None if math.isnan(x) else float(x) for x in r] for r in m.tolist()]}))
`

interface Table {
  name: string
  dir: string
  /** Key columns of the split (scalar columns). */
  key: string[]
  /** A categorical feature and the dictionary to encode it with (missing a value on purpose). */
  cat?: { column: string; dictionary: string[] }
}

/** A JSONL value as the runtime returns it, by the column's Delta type. */
function expected(v: unknown, type: string): unknown {
  if (v === null) return null
  if (type.startsWith('array<')) return (v as unknown[]).map(x => expected(x, type.slice(6, -1)))
  if (type === 'boolean') return v ? 1 : 0
  if (type === 'date') return Date.parse(`${v}T00:00:00Z`) / 86_400_000
  if (type === 'timestamp' || type === 'timestamp_ntz') return Date.parse(String(v)) * 1000
  if (type.startsWith('decimal')) return Number(v)
  if (typeof v === 'string' && /^(long|integer|short|byte)$/.test(type)) return Number(v)
  return v
}

describe.runIf(peer.run)('snaptrain_continue.py equals snaptrain', () => {
  const root = mkdtempSync(join(tmpdir(), 'snaptrain-runtime-'))
  const tables: Table[] = [
    {
      name: 'marketing',
      dir: join(root, 'marketing'),
      key: ['y', 'age', 'job', 'education', 'balance', 'pdays', 'poutcome', 'euribor3m'],
      cat: { column: 'job', dictionary: ['admin.', 'management', 'retired', 'student', 'technician'] },
    },
    { name: 'clicks', dir: join(root, 'clicks'), key: ['user_id', 'device', 'dense_0', 'dense_6', 'label'] },
    {
      name: 'all_primitive_types',
      dir: join(REPO, 'tests/conformance/dat/all_primitive_types/delta'),
      key: ['utf8', 'int64', 'int8', 'float32', 'float64', 'bool', 'binary', 'decimal', 'date32', 'timestamp'],
      cat: { column: 'utf8', dictionary: ['0', '2', '3'] },
    },
    {
      name: 'data-reader-primitives',
      dir: join(REPO, 'tests/conformance/golden/data-reader-primitives'),
      key: ['as_int', 'as_long', 'as_boolean', 'as_float', 'as_double', 'as_string', 'as_binary', 'as_big_decimal'],
      cat: { column: 'as_string', dictionary: ['1', '4', '7'] },
    },
  ]
  beforeAll(async () => {
    await writeMarketing({ dir: tables[0]!.dir, rows: 700, seed: 7 })
    await writeClicks({ dir: tables[1]!.dir, rows: 400, seed: 7 })
  }, 120_000)

  for (const t of tables) {
    test(`${t.name}: shards, row keys, split and codes`, async () => {
      peer.require()
      const scan = await runCli(['scan', '--table', t.dir, '--json'], {}, 60_000)
      expect(scan.code, scan.stderr).toBe(0)
      const summary = JSON.parse(scan.stdout.trim().split('\n').pop()!) as {
        columns: { name: string; type: unknown }[]
      }
      const typeText = (x: unknown): string =>
        typeof x === 'string' ? x : `array<${typeText((x as { elementType: unknown }).elementType)}>`
      const columns = summary.columns.filter(
        c => typeof c.type === 'string' || (c.type as { type: string }).type === 'array',
      )
      const names = columns.map(c => c.name)
      const jsonl = await runCli(['scan', '--table', t.dir, '--columns', names.join(',')], {}, 60_000)
      expect(jsonl.code, jsonl.stderr).toBe(0)
      const lines = jsonl.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map(l => JSON.parse(l) as Record<string, unknown>)
      const bundle = mkdtempSync(join(root, `${t.name}-`))
      const features = t.cat
        ? [{ name: t.cat.column, delta_type: 'string', kind: 'categorical', dictionary: t.cat.dictionary }]
        : []
      const spec = {
        kind: 'snaptrain-continue',
        format: 1,
        features,
        label: t.key[0],
        validation: { kind: 'fraction', ...SPLIT, key: t.key, rows: 0 },
        scan: { args: ['--table', t.dir, '--columns', names.join(','), '--format', 'npy'] },
      }
      writeFileSync(join(bundle, 'continue.json'), JSON.stringify(spec))
      writeFileSync(join(bundle, 'snaptrain_continue.py'), CONTINUE_RUNTIME_PY)
      const py = await runProcess(PYTHON, ['-c', READ_PY, bundle], {
        cwd: root,
        env: { ...process.env, ...ENV },
        killMs: 60_000,
      })
      expect(py.code, py.stderr).toBe(0)
      const got = JSON.parse(py.stdout.trim().split('\n').pop()!) as {
        one: Record<string, unknown[]>
        three: Record<string, unknown[]>
        sizes: number[]
        keys: number[]
        valid: number[]
        matrix: (number | null)[][]
      }
      // Every row once across 3 shards, in table order, sizes differing by at most one.
      expect(got.sizes.reduce((a, b) => a + b, 0)).toBe(lines.length)
      expect(Math.max(...got.sizes) - Math.min(...got.sizes)).toBeLessThanOrEqual(1)
      expect(got.three).toEqual(got.one)
      for (const c of columns) {
        const want = lines.map(r => expected(r[c.name] ?? null, typeText(c.type)))
        expect(got.one[c.name], c.name).toEqual(want)
      }
      // Row keys and the split: snaptrain's loader on the same table.
      const ours = await tableRowKeys(t.dir, t.key, SPLIT)
      expect(got.keys).toEqual(Array.from(ours.keys))
      expect(got.valid).toEqual(Array.from(ours.valid!))
      const held = got.valid.reduce((a, b) => a + b, 0)
      expect(held).toBeGreaterThan(0)
      expect(held).toBeLessThan(lines.length)
      if (t.cat) {
        const { column, dictionary } = t.cat
        const codes = lines.map(r => {
          const i = dictionary.indexOf(r[column] as string)
          return i < 0 ? null : i
        })
        expect(got.matrix.map(r => r[0])).toEqual(codes)
        expect(codes).toContain(null)
      }
    })
  }
})
