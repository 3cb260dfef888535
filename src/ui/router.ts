/**
 * The page's routes in the URL's hash: `#/` home (runs and sweeps, the tables, the open table with
 * its Single run | Sweep form), `#/runs/<id>` a run, `#/sweeps/<id>` a sweep, `#/compare/<a>/<b>`
 * two runs side by side. parseRoute and formatRoute are each other's inverse; anything else reads
 * as home. The browser's back and forward move between them (`hashchange`).
 */

/** Where the page is. */
export type Route =
  | { view: 'home' }
  | { view: 'run'; id: string }
  | { view: 'sweep'; id: string }
  | { view: 'compare'; a: string; b: string }

/** The route of a location hash (`#/runs/abc`); an unknown or empty hash is home. */
export function parseRoute(hash: string): Route {
  const parts = hash
    .replace(/^#\/?/, '')
    .split('/')
    .filter(p => p !== '')
    .map(decode)
  const [head, a, b] = parts
  if (head === 'runs' && a && parts.length === 2) return { view: 'run', id: a }
  if (head === 'sweeps' && a && parts.length === 2) return { view: 'sweep', id: a }
  if (head === 'compare' && a && b && parts.length === 3) return { view: 'compare', a, b }
  return { view: 'home' }
}

/** The hash of `route`, ids URI-encoded. */
export function formatRoute(route: Route): string {
  const e = encodeURIComponent
  switch (route.view) {
    case 'home':
      return '#/'
    case 'run':
      return `#/runs/${e(route.id)}`
    case 'sweep':
      return `#/sweeps/${e(route.id)}`
    case 'compare':
      return `#/compare/${e(route.a)}/${e(route.b)}`
  }
}

/** Goes to `route` (a history entry, so Back returns); the page hears it as `hashchange`. */
export function navigate(route: Route): void {
  const hash = formatRoute(route)
  if (location.hash !== hash) location.hash = hash
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}
