// Dependency policy (STYLE.md §13): a short runtime list, each justified in the README;
// devDependencies pinned exactly; no peerDependencies.
import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'))
const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
const EXACT = /^\d+\.\d+\.\d+$/

describe('package.json', () => {
  test('runtime dependencies are the short, justified list', () => {
    const deps = Object.keys(pkg.dependencies ?? {})
    expect(deps.length).toBeLessThanOrEqual(9)
    for (const d of deps) expect(readme, `README must justify dependency ${d}`).toContain('`' + d + '`')
  })

  test('every dependency is pinned to an exact version', () => {
    for (const [name, v] of Object.entries({ ...pkg.dependencies, ...pkg.devDependencies })) {
      expect(v, `${name} must be pinned exactly`).toMatch(EXACT)
    }
  })

  test('no peerDependencies', () => {
    expect(pkg.peerDependencies).toBeUndefined()
  })

  test('ES modules, bin snaptrain', () => {
    expect(pkg.type).toBe('module')
    expect(pkg.bin?.snaptrain).toBe('bin/snaptrain.js')
  })
})
