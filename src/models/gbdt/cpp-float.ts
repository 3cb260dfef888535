/**
 * A float parameter as XGBoost's config writes it (dmlc parameter `PrintValue`: an f32 streamed with
 * max_digits10 = 9 significant digits in C++'s default `%g` style): 0.7 → "0.699999988", 1.5 →
 * "1.5", 1 → "1", 1e-7 → "1.00000001e-07".
 */
export function cppFloat(x: number): string {
  const v = Math.fround(x)
  if (v === 0) return Object.is(v, -0) ? '-0' : '0'
  if (!Number.isFinite(v)) return Number.isNaN(v) ? 'nan' : v > 0 ? 'inf' : '-inf'
  const [mant, exp] = v.toExponential(8).split('e')
  const e = Number(exp)
  const strip = (s: string): string => (s.includes('.') ? s.replace(/0+$/, '').replace(/\.$/, '') : s)
  if (e < -4 || e >= 9) return `${strip(mant)}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`
  return strip(v.toFixed(Math.max(0, 8 - e)))
}
