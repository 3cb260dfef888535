/** The page's routes (src/ui/router.ts): parse and format are each other's inverse; anything else is home. */
import { expect, test } from 'vitest'
import { formatRoute, parseRoute, type Route } from '../../src/ui/router.ts'

test('every route survives format → parse, ids with URL-special characters included', () => {
  const routes: Route[] = [
    { view: 'home' },
    { view: 'run', id: 'mk2x9-a1b2c3' },
    { view: 'run', id: 'a/b c#?%' },
    { view: 'sweep', id: 'sw-mk2x9-0z1' },
    { view: 'compare', a: 'r1', b: 'r/2' },
  ]
  for (const r of routes) expect(parseRoute(formatRoute(r))).toEqual(r)
  expect(routes.map(formatRoute)).toEqual([
    '#/',
    '#/runs/mk2x9-a1b2c3',
    '#/runs/a%2Fb%20c%23%3F%25',
    '#/sweeps/sw-mk2x9-0z1',
    '#/compare/r1/r%2F2',
  ])
})

test('hashes as typed: a trailing slash or none; unknown, empty or incomplete ones are home', () => {
  expect(parseRoute('#/runs/abc/')).toEqual({ view: 'run', id: 'abc' })
  expect(parseRoute('#runs/abc')).toEqual({ view: 'run', id: 'abc' })
  expect(parseRoute('#/sweeps/s1')).toEqual({ view: 'sweep', id: 's1' })
  for (const h of ['', '#', '#/', '#/runs', '#/runs/a/b', '#/compare/a', '#/nothing/x'])
    expect(parseRoute(h), h).toEqual({ view: 'home' })
  // A malformed escape is kept as typed rather than failing.
  expect(parseRoute('#/sweeps/%E0%A4%A')).toEqual({ view: 'sweep', id: '%E0%A4%A' })
})
