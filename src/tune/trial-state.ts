/**
 * Trial states as Optuna users read them — RUNNING, COMPLETE, PRUNED, FAIL, WAITING — the one
 * mapping the Optuna journal (optuna.ts), the page and the CLI share, and the strategy's words
 * (brackets and rungs only where the strategy has them).
 *
 * A trial is PRUNED when its strategy cut it short, as Optuna's pruners report it: stopped at a
 * rung (ASHA: Optuna's SuccessiveHalvingPruner prunes a trial below its rung's top 1/η), or —
 * Hyperband and BOHB, whose promotions are new trials here (promotedFrom) while Optuna's
 * HyperbandPruner lets the same trial go on — completed at a rung below its bracket's last and
 * not promoted once that rung's promotions are decided. Until they are (the rung's next trials
 * not all issued) it is COMPLETE, as is a promoted one (its continuation is a later trial).
 * Failed, or ended without a finite metric → FAIL; running → RUNNING; pending → WAITING.
 */
import { ashaRungs } from './asha.ts'
import { hyperbandPlan } from './hyperband.ts'
import { resolveStrategyOptions } from './strategy.ts'
import type { StrategyName, StrategyOptions, SweepFamily, SweepState, TrialRecord } from './types.ts'

/** The strategy options of a stored config; undefined when they do not validate (an imported file's). */
function optionsOf(c: SweepState['config'], family: SweepFamily): StrategyOptions | undefined {
  try {
    return resolveStrategyOptions(family, {
      strategy: c.strategy,
      minResource: c.minResource,
      maxResource: c.maxResource,
      eta: c.eta,
      trials: c.trials,
    })
  } catch {
    return undefined
  }
}

/** Optuna's TrialState values, in code order (optuna/trial/_state.py). */
export const OPTUNA_STATES = ['RUNNING', 'COMPLETE', 'PRUNED', 'FAIL', 'WAITING'] as const
/** An Optuna trial state. */
export type OptunaTrialState = (typeof OPTUNA_STATES)[number]

/** How the page and the CLI write a state: running, complete, pruned, failed, waiting. */
export type TrialStateWord = 'running' | 'complete' | 'pruned' | 'failed' | 'waiting'

/** The word of an Optuna state (FAIL → failed, the others lower-cased). */
export function stateWord(s: OptunaTrialState): TrialStateWord {
  return s === 'FAIL' ? 'failed' : (s.toLowerCase() as TrialStateWord)
}

/** Every word, in the order the page lists them. */
export const STATE_WORDS: readonly TrialStateWord[] = ['running', 'complete', 'pruned', 'failed', 'waiting']

/** True for the strategies whose trials sit in brackets and rungs of a plan (promotions are new trials). */
export function hasBrackets(strategy: StrategyName): boolean {
  return strategy === 'hyperband' || strategy === 'bohb'
}

/** What the states are computed from: the sweep's config, status and trials. */
export type StatesInput = Pick<SweepState, 'config' | 'status' | 'trials'>

/** The Optuna state of every trial of `state` by id (see the module comment); `family` gives the default resources. */
export function trialStates(state: StatesInput, family: SweepFamily): Map<number, OptunaTrialState> {
  const undecided = hasBrackets(state.config.strategy) ? openRungs(state, family) : new Set<string>()
  const promoted = new Set(state.trials.flatMap(t => (t.promotedFrom === undefined ? [] : [t.promotedFrom])))
  const out = new Map<number, OptunaTrialState>()
  for (const t of state.trials) out.set(t.id, stateOf(t, state.config.strategy, promoted, undecided))
  return out
}

function stateOf(
  t: TrialRecord,
  strategy: StrategyName,
  promoted: ReadonlySet<number>,
  undecided: ReadonlySet<string>,
): OptunaTrialState {
  if (t.status === 'running') return 'RUNNING'
  if (t.status === 'pending') return 'WAITING'
  if (t.status === 'failed' || t.metric === undefined || !Number.isFinite(t.metric)) return 'FAIL'
  if (t.status === 'stopped') return 'PRUNED'
  const belowTop = hasBrackets(strategy) && t.rung < t.bracket
  return belowTop && !promoted.has(t.id) && !undecided.has(`${t.bracket}/${t.rung}`) ? 'PRUNED' : 'COMPLETE'
}

/**
 * Hyperband / BOHB rungs ("bracket/rung") whose promotions are not all issued yet: fewer trials
 * at the next rung than the plan promotes (its n, or fewer when fewer finished with a metric).
 * None once the sweep finished.
 */
function openRungs(state: StatesInput, family: SweepFamily): Set<string> {
  const open = new Set<string>()
  if (state.status === 'finished') return open
  const o = optionsOf(state.config, family)
  if (!o) return open
  for (const b of hyperbandPlan(o.minResource, o.maxResource, o.eta, o.trials)) {
    for (let r = 0; r + 1 < b.rungs.length; r++) {
      const at = (k: number) => state.trials.filter(t => t.bracket === b.index && t.rung === k)
      const eligible = at(r).filter(t => t.status !== 'failed' && t.metric !== undefined).length
      if (at(r + 1).length < Math.min(b.rungs[r + 1]!.n, eligible)) open.add(`${b.index}/${r}`)
    }
  }
  return open
}

/** How many trials are in each state (every word, 0 where none). */
export function stateCounts(states: ReadonlyMap<number, OptunaTrialState>): Record<TrialStateWord, number> {
  const c: Record<TrialStateWord, number> = { running: 0, complete: 0, pruned: 0, failed: 0, waiting: 0 }
  for (const s of states.values()) c[stateWord(s)]++
  return c
}

/**
 * The rung a trial reached in the strategy's terms: its own for Hyperband / BOHB; for ASHA the
 * highest rung boundary (r·η^k) it reported at, the last rung being the full budget; undefined
 * for strategies without rungs (grid, random, TPE) and before a report.
 */
export function rungReached(
  t: TrialRecord,
  state: Pick<SweepState, 'config'>,
  family: SweepFamily,
): number | undefined {
  const c = state.config
  if (hasBrackets(c.strategy)) return t.rung
  if (c.strategy !== 'asha') return undefined
  const reached = t.curve.at(-1)?.resource
  const o = optionsOf(c, family)
  if (reached === undefined || !o) return undefined
  const rungs = [...ashaRungs(o.minResource, o.maxResource, o.eta), o.maxResource]
  let k = -1
  while (k + 1 < rungs.length && rungs[k + 1]! <= reached) k++
  return k < 0 ? undefined : k
}

/** How each strategy is called in a sentence. */
const STRATEGY_TITLES: Record<StrategyName, string> = {
  grid: 'grid search',
  random: 'random search',
  tpe: 'TPE',
  hyperband: 'Hyperband',
  asha: 'ASHA',
  bohb: 'BOHB (Hyperband with TPE)',
}

/**
 * The sweep in one sentence, in its strategy's words: "random search: 20 trials at 27 boosting
 * rounds"; "Hyperband: 2 brackets, rungs at 1, 3, 9 boosting rounds (η 3); 13 trials, 4 of them
 * promotions"; "ASHA: 20 trials up to 27 boosting rounds, rungs at 1, 3, 9 (η 3)".
 */
export function strategyLine(state: Pick<SweepState, 'config' | 'trials'>, family: SweepFamily): string {
  const c = state.config
  const unit = family.resource.many ?? family.resource.param
  const n = state.trials.length
  const trials = `${n} trial${n === 1 ? '' : 's'}`
  const o = optionsOf(c, family)
  const title = STRATEGY_TITLES[c.strategy]
  if (!o) return `${title}: ${trials}`
  if (hasBrackets(c.strategy)) {
    const plan = hyperbandPlan(o.minResource, o.maxResource, o.eta, o.trials)
    const rungs = [...new Set(plan.flatMap(b => b.rungs.map(r => r.resource)))].sort((a, b) => a - b)
    const promotions = state.trials.filter(t => t.promotedFrom !== undefined).length
    return (
      `${title}: ${plan.length} bracket${plan.length === 1 ? '' : 's'}, rungs at ${rungs.join(', ')} ${unit} (η ${o.eta}); ` +
      `${trials}${promotions ? `, ${promotions} of them promotion${promotions === 1 ? '' : 's'}` : ''}`
    )
  }
  if (c.strategy === 'asha')
    return `${title}: ${trials} up to ${o.maxResource} ${unit}, rungs at ${ashaRungs(o.minResource, o.maxResource, o.eta).join(', ')} (η ${o.eta})`
  const asked = [...new Set(state.trials.map(t => t.resource))].sort((a, b) => a - b)
  const at = asked.length > 1 ? `${asked[0]}–${asked.at(-1)}` : String(asked[0] ?? o.maxResource)
  return `${title}: ${trials} at ${at} ${unit}`
}
