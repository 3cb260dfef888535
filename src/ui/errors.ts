/**
 * Turns anything thrown by any layer (reader, GPU, fetch, our own code) into an ErrorView the page
 * can show: message, reader error code and URL where present, and the chain of `cause`s.
 */
import type { ErrorView } from './types.ts'

/** Longest cause chain shown; guards against cyclic `cause` links. */
const MAX_CAUSES = 8

/** ErrorView for `e` thrown while doing `context` (a short phrase naming the step). */
export function toErrorView(context: string, e: unknown): ErrorView {
  const view: ErrorView = { context, message: messageOf(e), causes: [] }
  if (e && typeof e === 'object') {
    const { code, url } = e as { code?: unknown; url?: unknown }
    if (typeof code === 'string') view.code = code
    if (typeof url === 'string') view.url = url
  }
  let c = causeOf(e)
  while (c !== undefined && view.causes.length < MAX_CAUSES) {
    view.causes.push(messageOf(c))
    c = causeOf(c)
  }
  return view
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return e.name && e.name !== 'Error' ? `${e.name}: ${e.message}` : e.message
  return String(e)
}

function causeOf(e: unknown): unknown {
  return e instanceof Error ? e.cause : undefined
}
