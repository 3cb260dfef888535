/**
 * No model family is named outside src/models/: every shell (tune/ through its callers, sweep/,
 * cli/, ui/, continue/, run/, predict) reads src/models/registry.ts, so a new family is one folder
 * plus one registry entry. The check strips comments (they may name a family) and then looks for
 * a family name as a whole string literal or string type: 'gbdt', "recsys", `gblinear`, and for a
 * quoted family name inside a template's text (generated code, e.g. a Python `"recsys"`).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FAMILY_NAMES } from '../../src/models/registry.ts'

const SRC = resolve(import.meta.dirname, '../../src')

/** Every .ts file under `dir`. */
function files(dir: string): string[] {
  return readdirSync(dir).flatMap(name => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : path.endsWith('.ts') ? [path] : []
  })
}

/**
 * `text` with its comments blanked (line breaks kept, so line numbers hold). Strings, templates
 * and regular expressions are skipped whole, so a `//` inside one is not taken for a comment.
 */
export function stripComments(text: string): string {
  let out = ''
  let i = 0
  const n = text.length
  while (i < n) {
    const c = text[i]!,
      d = text[i + 1]
    if (c === '/' && d === '/') {
      while (i < n && text[i] !== '\n') i++
    } else if (c === '/' && d === '*') {
      const end = text.indexOf('*/', i + 2)
      const stop = end < 0 ? n : end + 2
      out += text.slice(i, stop).replace(/[^\n]/g, ' ')
      i = stop
    } else if (c === "'" || c === '"' || c === '`') {
      let j = i + 1
      while (j < n && text[j] !== c) j += text[j] === '\\' ? 2 : 1
      out += text.slice(i, j + 1)
      i = j + 1
    } else {
      out += c
      i++
    }
  }
  return out
}

/** `file:line: literal` for each family name quoted whole in `text` (comments stripped first). */
export function familyLiterals(file: string, text: string, names: readonly string[]): string[] {
  const code = stripComments(text)
  const alternatives = names.map(n => n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')
  const quoted = new RegExp(`(['"\`])(?:${alternatives})\\1`, 'g')
  return [...code.matchAll(quoted)].map(m => {
    const line = code.slice(0, m.index).split('\n').length
    return `${file}:${line}: ${m[0]}`
  })
}

describe('family names', () => {
  it('appear as literals only in src/models/ (the registry and the families)', () => {
    expect(FAMILY_NAMES.length).toBeGreaterThanOrEqual(2)
    const found = files(SRC)
      .filter(f => !relative(SRC, f).startsWith('models/'))
      .flatMap(f => familyLiterals(relative(SRC, f), readFileSync(f, 'utf8'), FAMILY_NAMES))
    expect(found).toEqual([])
  })

  it('are found in a string, a type, a template and generated code, not in a comment (the check can fail)', () => {
    const text = [
      "/** Trains 'gbdt' or 'recsys'. */",
      "// model === 'gbdt'",
      "const a = x === 'gbdt' ? 1 : 2",
      'type M = "recsys" | string',
      "const url = 'http://h/a//b' // 'gbdt' after a string holding //",
      'const b = `gbdt`',
      'const py = `if spec["family"] != "recsys":`',
      "const path = '../models/gbdt/family.ts'",
      "const label = 'gbdt model'",
    ].join('\n')
    expect(familyLiterals('fake.ts', text, ['gbdt', 'recsys'])).toEqual([
      "fake.ts:3: 'gbdt'",
      'fake.ts:4: "recsys"',
      'fake.ts:6: `gbdt`',
      'fake.ts:7: "recsys"',
    ])
  })

  it('strips comments but keeps strings that hold comment marks', () => {
    expect(stripComments('a /* x\ny */ b // z\nc = \'//\' + "/*"')).toBe('a     \n     b \nc = \'//\' + "/*"')
  })
})
