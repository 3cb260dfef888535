/**
 * The local sharing proxy's routes as the page and the server (src/serve/sharing-proxy.ts) both
 * know them: the prefix on the page's own origin, the registration route, and what its probe (a GET
 * of that route) answers — 200 with this name, so the browser logs no error for the probe.
 */
export const PROXY_PREFIX = '/__snaptrain/sharing/'
/** Where the page registers a profile (POST) and probes for the proxy (GET). */
export const PROXY_PROFILES = `${PROXY_PREFIX}profiles`
/** The probe's `proxy` field. */
export const PROXY_NAME = 'snaptrain-sharing-proxy'
