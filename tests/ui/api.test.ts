import { expect, test } from 'vitest'
import { adapterInfo, createApi, installApi, tableRoot } from '../../src/api.ts'
import { SNAPTRAIN_API, surface } from '../support/api-surface.ts'

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

test('createApi exposes the version and every entry point, each of its kind, and no bench', () => {
  const api = createApi('http://h:5/')
  expect(api.version).toMatch(/^\d+\.\d+\.\d+/)
  expect(surface(api)).toEqual(SNAPTRAIN_API)
  expect('bench' in api).toBe(false)
})

test('installApi puts that API on window.snaptrain, and the app page has no bench API', () => {
  const api = installApi()
  expect(window.snaptrain).toBe(api)
  expect(surface(window.snaptrain)).toEqual(SNAPTRAIN_API)
  expect('snaptrainBench' in window).toBe(false)
})
