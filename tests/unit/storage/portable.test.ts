import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// src/storage runs unchanged in Node, browsers and workers: only fetch, Web Crypto and standard globals.
const DIR = join(import.meta.dirname, '../../../src/storage')

describe('src/storage is portable', () => {
  it.each(readdirSync(DIR).filter(f => f.endsWith('.ts')))('%s uses no Node-only API', file => {
    const source = readFileSync(join(DIR, file), 'utf8')
    expect(source).not.toMatch(/from ['"]node:|(?<![.\w])require\(|\bprocess\.|\bBuffer\.|\b__dirname\b/)
  })
})
