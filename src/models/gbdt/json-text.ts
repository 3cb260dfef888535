/**
 * Reading XGBoost's JSON text: JSON plus the bare tokens `NaN`, `Infinity` and `-Infinity`, which
 * XGBoost writes for non-finite floats (1.7 writes `NaN` as the split_condition of every
 * categorical node) and JSON.parse refuses. Valid JSON goes through JSON.parse unchanged; only
 * text it refuses is read again by the small parser below, which accepts exactly those tokens
 * besides JSON (strings are decoded by JSON.parse, so their contents are never touched).
 * N = characters.
 */

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const WORDS: Array<[string, unknown]> = [
  ['NaN', NaN],
  ['Infinity', Infinity],
  ['-Infinity', -Infinity],
  ['true', true],
  ['false', false],
  ['null', null],
]

/** Parses XGBoost JSON text. Throws SyntaxError naming the offset of the first bad character. */
export function parseXGBoostJsonText(text: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (e) {
    if (!/NaN|Infinity/.test(text)) throw e
  }
  return new Reader(text).document()
}

/** Sets an own property (also for the key "__proto__", as JSON.parse does). */
export function own(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true })
}

class Reader {
  private i = 0
  constructor(private readonly s: string) {}

  document(): unknown {
    const v = this.value(0)
    this.space()
    if (this.i !== this.s.length) this.fail('unexpected text after the value')
    return v
  }

  private fail(what: string): never {
    throw new SyntaxError(`model JSON: ${what} at offset ${this.i}`)
  }

  private space(): void {
    const s = this.s
    while (this.i < s.length && (s[this.i] === ' ' || s[this.i] === '\n' || s[this.i] === '\r' || s[this.i] === '\t'))
      this.i++
  }

  private value(depth: number): unknown {
    if (depth > 512) this.fail('nesting deeper than 512')
    this.space()
    const c = this.s[this.i]
    if (c === '{') return this.object(depth)
    if (c === '[') return this.array(depth)
    if (c === '"') return this.string()
    for (const [w, v] of WORDS)
      if (this.s.startsWith(w, this.i)) {
        this.i += w.length
        return v
      }
    NUMBER.lastIndex = this.i
    const m = NUMBER.exec(this.s)
    if (!m) this.fail(c === undefined ? 'unexpected end' : `unexpected ${JSON.stringify(c)}`)
    this.i += m[0].length
    return Number(m[0])
  }

  private string(): string {
    const s = this.s
    let j = this.i + 1
    while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1
    if (j >= s.length) this.fail('unterminated string')
    const v = JSON.parse(s.slice(this.i, j + 1)) as string
    this.i = j + 1
    return v
  }

  /** `[`, values separated by commas, `]`. */
  private array(depth: number): unknown[] {
    const out: unknown[] = []
    this.i++
    this.space()
    if (this.s[this.i] === ']') {
      this.i++
      return out
    }
    for (;;) {
      out.push(this.value(depth + 1))
      this.space()
      const c = this.s[this.i++]
      if (c === ']') return out
      if (c !== ',') this.fail("expected ',' or ']'")
    }
  }

  private object(depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {}
    this.i++
    this.space()
    if (this.s[this.i] === '}') {
      this.i++
      return out
    }
    for (;;) {
      this.space()
      if (this.s[this.i] !== '"') this.fail('expected a key')
      const k = this.string()
      this.space()
      if (this.s[this.i++] !== ':') this.fail("expected ':'")
      own(out, k, this.value(depth + 1))
      this.space()
      const c = this.s[this.i++]
      if (c === '}') return out
      if (c !== ',') this.fail("expected ',' or '}'")
    }
  }
}
