/**
 * The unit and integration tiers are Node only: no child process, no Chromium, no CLI spawn, no
 * Python. This test reads every tests/unit and tests/integration file (and the test helpers it
 * imports, transitively) and names each file that starts a process: a direct child_process /
 * Playwright / launchBrowser use, a helper whose body does (runCli, shareAppPage, xgbPredict…), or a
 * helper module that spawns when it loads (peers.ts runs python3 at import). Such a file belongs in
 * tests/e2e (CLI, Chromium, other processes) or tests/peer (Python peers). Its runtime twin,
 * tests/support/node-only.ts (the setup file of both projects), makes every spawn in those tiers
 * throw; the last test here shows that it does.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import ts from 'typescript'
import { describe, expect, test } from 'vitest'
import { REPO } from '../support/cli.ts'

/** Files that may spawn in the unit tier: this one, only to show that tests/support/node-only.ts throws. */
const ALLOWED = new Set(['tests/unit/test-tiers.test.ts'])

/** Modules whose values start a process (a path suffix for the repository's own). */
const SPAWNS = [/^(node:)?child_process$/, /^playwright(-core)?$/, /\/src\/cli\/launch\.ts$/]

/** What a module's loading or its exports do that starts a process: name → why. */
interface Bound {
  /** Why loading the module starts a process; undefined when it does not. */
  onLoad: string | undefined
  exports: Map<string, string>
}

/**
 * Names each file under `files` (repo-relative) that starts a process, by reading `read(path)`;
 * helpers are followed through relative imports inside tests/.
 */
export function tierViolations(files: string[], read: (path: string) => string | undefined): string[] {
  const memo = new Map<string, Bound>()
  const analyse = (path: string, stack: string[]): Bound => {
    const known = memo.get(path)
    if (known) return known
    const empty: Bound = { onLoad: undefined, exports: new Map() }
    const text = read(path)
    if (text === undefined || stack.includes(path)) return empty
    memo.set(path, empty)
    const bound = boundNames(path, text, stack)
    memo.set(path, bound)
    return bound
  }
  // Local names bound to a process in `path`, then the exports and load-time code that use them.
  const boundNames = (path: string, text: string, stack: string[]): Bound & { locals: Map<string, string> } => {
    const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true)
    const locals = new Map<string, string>()
    let onLoad: string | undefined
    for (const st of sf.statements) {
      if (!ts.isImportDeclaration(st) || st.importClause?.isTypeOnly) continue
      const spec = (st.moduleSpecifier as ts.StringLiteral).text
      const target = spec.startsWith('.') ? join(dirname(path), spec) : spec
      const clause = st.importClause
      const names: [local: string, imported: string][] = []
      if (clause?.name) names.push([clause.name.text, 'default'])
      const nb = clause?.namedBindings
      if (nb && ts.isNamespaceImport(nb)) names.push([nb.name.text, '*'])
      if (nb && ts.isNamedImports(nb))
        for (const el of nb.elements) if (!el.isTypeOnly) names.push([el.name.text, (el.propertyName ?? el.name).text])
      if (SPAWNS.some(re => re.test(target.startsWith('src/') ? `/${target}` : target))) {
        for (const [local, imported] of names) locals.set(local, `${imported} from ${spec}`)
      } else if (target.startsWith('tests/')) {
        const helper = analyse(target, [...stack, path])
        if (helper.onLoad) onLoad ??= `imports ${target}, which ${helper.onLoad}`
        for (const [local, imported] of names) {
          const why = helper.exports.get(imported)
          if (why) locals.set(local, `${imported} (${target}: ${why})`)
        }
      }
    }
    const direct = /\b(import|require)\(\s*['"](node:)?child_process['"]/.exec(text)
    if (direct) onLoad ??= 'loads child_process'
    // Functions whose body uses a bound name are bound too (until nothing changes).
    const fns = new Map<string, ts.Node>()
    for (const st of sf.statements) {
      if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) && st.name) fns.set(st.name.text, st)
      if (ts.isVariableStatement(st))
        for (const d of st.declarationList.declarations)
          if (ts.isIdentifier(d.name) && d.initializer && isFunctionLike(d.initializer)) fns.set(d.name.text, d)
    }
    for (let changed = true; changed; ) {
      changed = false
      for (const [name, node] of fns) {
        if (locals.has(name)) continue
        const use = firstUse(node, locals)
        if (use) {
          locals.set(name, `calls ${use}`)
          changed = true
        }
      }
    }
    // Code that runs at load: every top-level statement but imports, types and function definitions.
    for (const st of sf.statements) {
      if (ts.isImportDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) continue
      if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st)) continue
      if (ts.isVariableStatement(st)) {
        for (const d of st.declarationList.declarations) {
          if (!d.initializer || isFunctionLike(d.initializer)) continue
          const use = firstUse(d.initializer, locals)
          if (use) onLoad ??= `runs ${use} when loaded`
        }
        continue
      }
      const use = firstUse(st, locals)
      if (use) onLoad ??= `runs ${use}`
    }
    const exported = new Map<string, string>()
    for (const [name, why] of locals) exported.set(name, why)
    return { onLoad, exports: exported, locals }
  }
  const out: string[] = []
  for (const file of files) {
    const text = read(file)
    if (text === undefined) continue
    const { onLoad } = boundNames(file, text, [])
    if (onLoad) out.push(`${file}: ${onLoad}`)
  }
  return out
}

function isFunctionLike(n: ts.Node): boolean {
  return ts.isArrowFunction(n) || ts.isFunctionExpression(n) || ts.isClassExpression(n)
}

/** The first use of a bound name under `node` (not a property name, not inside an import), with why. */
function firstUse(node: ts.Node, bound: Map<string, string>): string | undefined {
  let found: string | undefined
  const visit = (n: ts.Node): void => {
    if (found) return
    if (ts.isIdentifier(n) && bound.has(n.text)) {
      const p = n.parent
      const isName =
        (ts.isPropertyAccessExpression(p) && p.name === n) ||
        (ts.isPropertyAssignment(p) && p.name === n) ||
        ((ts.isFunctionDeclaration(p) || ts.isVariableDeclaration(p) || ts.isClassDeclaration(p)) && p.name === n)
      if (!isName) found = `${n.text}: ${bound.get(n.text)}`
    }
    ts.forEachChild(n, visit)
  }
  visit(node)
  return found
}

/** Repo-relative .ts files under `dir`, recursively. */
function tsFiles(dir: string): string[] {
  return readdirSync(join(REPO, dir), { recursive: true, encoding: 'utf8' })
    .filter(f => f.endsWith('.ts'))
    .map(f => join(dir, f))
    .sort()
}

const readRepo = (path: string): string | undefined => {
  try {
    return readFileSync(resolve(REPO, path), 'utf8')
  } catch {
    return undefined
  }
}

describe('the Node tiers (unit, integration) start no process', () => {
  test('no tests/unit file spawns, drives Chromium, runs the CLI or Python (move it to tests/e2e or tests/peer)', () => {
    const files = tsFiles('tests/unit').filter(f => f.endsWith('.test.ts') && !ALLOWED.has(f))
    expect(files.length).toBeGreaterThan(100)
    expect(tierViolations(files, readRepo)).toEqual([])
  })

  test('no tests/integration file spawns, drives Chromium, runs the CLI or Python either', () => {
    const files = tsFiles('tests/integration').filter(f => f.endsWith('.test.ts'))
    expect(files.length).toBeGreaterThan(5)
    expect(tierViolations(files, readRepo)).toEqual([])
  })

  test('both Node tiers load the run-time guard (tests/support/node-only.ts) in vitest.config.ts', () => {
    const config = readRepo('vitest.config.ts')!
    for (const name of ['unit', 'integration']) {
      const at = config.indexOf(`name: '${name}'`)
      expect(at, `project ${name}`).toBeGreaterThan(0)
      const project = config.slice(at, config.indexOf('\n      },', at))
      expect(project).toContain(`include: ['tests/${name}/**/*.test.ts']`)
      expect(project).toContain("setupFiles: ['tests/support/node-only.ts']")
      expect(project).not.toContain('browser')
    }
  })

  test('can fail: it names the real spawning helpers and a file that uses them, and passes the pure ones', () => {
    const fake = 'tests/unit/misplaced.test.ts'
    const sources: Record<string, string> = {
      [fake]: [
        "import { REPO, runCli, runMain, shareAppPage } from '../support/cli.ts'",
        "import { conformanceTable } from '../support/share-fixture.ts'",
        "test('x', async () => { await runMain(['scan']); await runCli(['scan']) })",
      ].join('\n'),
      'tests/unit/pure.test.ts': [
        "import type { Browser } from 'playwright-core'",
        "import { REPO, lastJson, runMain } from '../support/cli.ts'",
        "import { conformanceTable } from '../support/share-fixture.ts'",
        "test('x', async () => lastJson(await runMain(['scan', REPO])))",
      ].join('\n'),
      'tests/unit/python.test.ts': "import { PYTHON } from '../support/peers.ts'\nconsole.log(PYTHON)",
      'tests/unit/page.test.ts': "import { shareAppPage } from '../support/cli.ts'\nshareAppPage()",
      'tests/unit/direct.test.ts': "import * as cp from 'node:child_process'\ntest('x', () => cp.execSync('ls'))",
      'tests/unit/chromium.test.ts':
        "import { launchBrowser } from '../../src/cli/launch.ts'\ntest('x', async () => (await launchBrowser()).close())",
    }
    const found = tierViolations(Object.keys(sources), p => sources[p] ?? readRepo(p))
    expect(found.map(v => v.split(':')[0])).toEqual([
      fake,
      'tests/unit/python.test.ts',
      'tests/unit/page.test.ts',
      'tests/unit/direct.test.ts',
      'tests/unit/chromium.test.ts',
    ])
    expect(found[0]).toMatch(/runCli \(tests\/support\/cli\.ts: calls runProcess.*spawn from node:child_process/)
    expect(found[1]).toMatch(/tests\/support\/peers\.ts, which runs spawnSync/)
    expect(found[2]).toMatch(/shareAppPage \(tests\/support\/cli\.ts: calls launchBrowser/)
  })

  test('can fail at run time: a spawn in the unit tier throws naming the file (tests/support/node-only.ts)', () => {
    expect(() => spawnSync(process.execPath, ['-e', '0'])).toThrow(
      /test-tiers\.test\.ts: child_process\.spawnSync\(.*\) in the unit tier, which is Node only/,
    )
    expect(relative(REPO, import.meta.filename)).toBe('tests/unit/test-tiers.test.ts')
  })
})
