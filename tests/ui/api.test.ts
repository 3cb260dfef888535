import { expect, test } from 'vitest'
import { adapterInfo, createApi, tableRoot } from '../../src/api.ts'

test('tableRoot resolves page-relative table URLs and adds the folder slash', () => {
  expect(tableRoot('tables/clicks', 'http://h:5/app/index.html')).toBe('http://h:5/app/tables/clicks/')
  expect(tableRoot('/tables/clicks/', 'http://h:5/app/')).toBe('http://h:5/tables/clicks/')
  expect(tableRoot('https://bucket.example/t', 'http://h:5/')).toBe('https://bucket.example/t/')
})

test('adapterInfo describes the adapter navigator.gpu hands out', async () => {
  const adapter = await navigator.gpu.requestAdapter()
  const info = await adapterInfo()
  expect(info.vendor).toBe(adapter!.info.vendor)
  expect(info.architecture).toBe(adapter!.info.architecture)
  expect(info.limits.maxBufferSize).toBe(adapter!.limits.maxBufferSize)
  expect(info.features).toEqual([...adapter!.features].sort())
})

test('createApi exposes the version and every entry point', () => {
  const api = createApi('http://h:5/')
  expect(api.version).toMatch(/^\d+\.\d+\.\d+/)
  for (const k of ['adapterInfo', 'listTables', 'openSnapshot', 'listCommits', 'readRows', 'bench'] as const) {
    expect(typeof api[k]).toBe('function')
  }
})
