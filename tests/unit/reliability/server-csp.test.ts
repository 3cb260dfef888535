/**
 * The page's Content-Security-Policy: the same policy in index.html's meta tag and in the dev and
 * preview servers' headers (vite.config.ts), with no 'unsafe-eval' and scripts from the page's
 * origin only; COOP/COEP for cross-origin isolation; loopback binding. And no string evaluation
 * anywhere in src/ (eval, new Function, string timers), which the policy would break anyway.
 */
import { describe, expect, it } from 'vitest'
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import config from '../../../vite.config.ts'
import { CONTENT_SECURITY_POLICY } from '../../../src/serve/csp.ts'
import { REPO } from '../../support/cli.ts'

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map(d => d.trim().split(/\s+/))
      .filter(d => d[0])
      .map(([name, ...values]) => [name, values]),
  )
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap(e => {
    const path = join(dir, e.name)
    return e.isDirectory() ? sourceFiles(path) : /\.(ts|js|mjs)$/.test(e.name) ? [path] : []
  })
}

describe('Content-Security-Policy', () => {
  it('has no unsafe-eval, scripts and workers from self only, no plugins', () => {
    const d = directives(CONTENT_SECURITY_POLICY)
    expect(CONTENT_SECURITY_POLICY).not.toContain("'unsafe-eval'")
    expect(d.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"])
    expect(d.get('worker-src')).toEqual(["'self'"])
    expect(d.get('object-src')).toEqual(["'none'"])
    expect(d.get('default-src')).toEqual(["'self'"])
  })

  it('index.html carries the same policy as the servers send', () => {
    const html = readFileSync(join(REPO, 'index.html'), 'utf8')
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)
    expect(meta?.[1]).toBe(CONTENT_SECURITY_POLICY)
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/) // no inline scripts
  })

  it('dev and preview servers: CSP, COOP/COEP, loopback', () => {
    const cfg = config as {
      server?: { headers?: Record<string, string>; host?: string }
      preview?: { headers?: Record<string, string>; host?: string }
    }
    for (const side of [cfg.server, cfg.preview]) {
      expect(side?.host).toBe('127.0.0.1')
      expect(side?.headers?.['Content-Security-Policy']).toBe(CONTENT_SECURITY_POLICY)
      expect(side?.headers?.['Cross-Origin-Opener-Policy']).toBe('same-origin')
      expect(side?.headers?.['Cross-Origin-Embedder-Policy']).toBe('require-corp')
    }
  })
})

describe('no string evaluation in src/', () => {
  const patterns: Array<[string, RegExp]> = [
    ['eval(', /(^|[^\w.$])eval\s*\(/],
    ['new Function(', /new\s+Function\s*\(/],
    ['Function("…")', /(^|[^\w.$])Function\s*\(\s*['"`]/],
    ['string timer', /set(Timeout|Interval)\s*\(\s*['"`]/],
  ]
  it('finds none (comments excluded)', () => {
    const hits: string[] = []
    const files = sourceFiles(join(REPO, 'src'))
    expect(files.length).toBeGreaterThan(50)
    for (const file of files) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.replace(/\/\/.*$/, '')
          if (/^\s*\*/.test(code)) return
          for (const [name, re] of patterns) if (re.test(code)) hits.push(`${relative(REPO, file)}:${i + 1}: ${name}`)
        })
    }
    expect(hits).toEqual([])
  })

  it('the check catches each form (so an empty result means something)', () => {
    for (const [name, re] of patterns) {
      const sample = {
        'eval(': 'x = eval(s)',
        'new Function(': 'const f = new Function("a", s)',
        'Function("…")': "Function('return this')()",
        'string timer': "setTimeout('go()', 1)",
      }[name]!
      expect(re.test(sample), name).toBe(true)
    }
    expect(/(^|[^\w.$])eval\s*\(/.test('page.evaluate(x)')).toBe(false)
  })
})
