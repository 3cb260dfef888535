/** Test helper: mounts an element with properties set, waits for its first render. */
import type { LitElement } from 'lit'

/** Creates `<tag>`, assigns `props` before connecting (as an owner's template would), renders it. */
export async function fixture<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Partial<HTMLElementTagNameMap[K]> = {},
): Promise<HTMLElementTagNameMap[K]> {
  const el = document.createElement(tag)
  Object.assign(el, props)
  document.body.append(el)
  await (el as unknown as LitElement).updateComplete
  return el
}

/** Text of the element's shadow root with whitespace collapsed. */
export function textOf(el: Element): string {
  return (el.shadowRoot?.textContent ?? el.textContent ?? '').replace(/\s+/g, ' ').trim()
}

/** Every event of `type` that reaches `target`, recorded in order. */
export function record<T>(target: EventTarget, type: string): T[] {
  const seen: T[] = []
  target.addEventListener(type, e => seen.push((e as CustomEvent<T>).detail))
  return seen
}

/** Removes everything mounted by earlier tests, and the route (st-app's views follow the hash) they left. */
export function cleanup(): void {
  document.body.replaceChildren()
  if (location.hash) history.replaceState(null, '', location.pathname + location.search)
}

/** Polls `probe` every frame until it returns a value, for at most `ms` (default 3 s). */
export async function waitFor<T>(probe: () => T | undefined | null | false, ms = 3000): Promise<T> {
  const until = performance.now() + ms
  for (;;) {
    const v = probe()
    if (v) return v
    if (performance.now() > until) throw new Error(`waitFor timed out: ${probe}`)
    await new Promise(r => requestAnimationFrame(r))
  }
}
