/**
 * The app page's Content-Security-Policy, shared by vite.config.ts (dev and preview servers send
 * it as a header) and checked against index.html's meta tag by the tests, so the page is covered
 * however it is hosted. No 'unsafe-eval' (nothing in src/ evaluates strings; a unit test greps for
 * it); scripts and workers only from the page's origin. 'wasm-unsafe-eval' allows compiling
 * WebAssembly only (not JS strings): hyparquet-compressors' snappy decoder (hysnappy) is WASM. Styles allow 'unsafe-inline' because vite's
 * dev server injects imported CSS as <style> elements. connect-src stays open to http(s): the user
 * names the table URL, which may be any host.
 */

/** Directives valid in a `<meta http-equiv>` policy (frame-ancestors is header-only). */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self' http: https: ws: wss:",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
].join('; ')

/** CSP for the loopback table server's answers: data, never a document or script. */
export const DATA_CSP = "default-src 'none'; sandbox"
