import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// src/storage and src/sources run unchanged in Node, browsers and workers: only fetch, Web Crypto and
// standard globals (what only the CLI can do, a source is lent by its host).
const SRC = join(import.meta.dirname, '../../../src')
const FILES = ['storage', 'sources'].flatMap(dir =>
  (readdirSync(join(SRC, dir), { recursive: true }) as string[]).filter(f => f.endsWith('.ts')).map(f => join(dir, f)),
)

describe('src/storage and src/sources are portable', () => {
  it('finds the files of both', () => {
    expect(FILES).toContain(join('storage', 's3-resolver.ts'))
    expect(FILES).toContain(join('sources', 's3', 'source.ts'))
  })

  it.each(FILES)('%s uses no Node-only API', file => {
    const source = readFileSync(join(SRC, file), 'utf8')
    expect(source).not.toMatch(/from ['"]node:|(?<![.\w])require\(|\bprocess\.|\bBuffer\.|\b__dirname\b/)
  })
})
