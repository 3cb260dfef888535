/**
 * Optuna 3.1 (python3-optuna behind /usr/bin/python3) as the tests' peer for sweep journals:
 * `loadStudy` opens a journal with `optuna.load_study` and returns what a user would look at;
 * `runOptunaStudy` has Optuna itself write a small study (its own TPE, a pruned and a failed trial).
 */
import { spawnSync } from 'node:child_process'
import { PYTHON } from './peers.ts'

/** Loads study argv[2] of journal argv[1] with Optuna and prints it as JSON; with argv[3], Optuna runs one more trial. */
const LOAD_STUDY = `
import json, sys, warnings
warnings.filterwarnings("ignore")
import optuna
from optuna.storages import JournalStorage, JournalFileStorage
optuna.logging.set_verbosity(optuna.logging.WARNING)
path, name = sys.argv[1], sys.argv[2]
study = optuna.load_study(study_name=name, storage=JournalStorage(JournalFileStorage(path)))
def dist(d):
    return {"name": type(d).__name__, **{k: list(v) if isinstance(v, tuple) else v for k, v in d._asdict().items()}}
out = {
    "studies": [s.study_name for s in optuna.get_all_study_summaries(JournalStorage(JournalFileStorage(path)))],
    "direction": study.direction.name,
    "user_attrs": study.user_attrs,
    "trials": [{
        "number": t.number, "state": t.state.name, "value": t.value, "params": t.params,
        "distributions": {k: dist(d) for k, d in t.distributions.items()},
        "intermediate": {str(k): v for k, v in t.intermediate_values.items()},
        "user_attrs": t.user_attrs,
        "started": t.datetime_start is not None, "completed": t.datetime_complete is not None,
    } for t in study.trials],
}
try:
    out["best"] = {"number": study.best_trial.number, "value": study.best_value, "params": study.best_params}
except ValueError:
    out["best"] = None
if len(sys.argv) > 3:
    # Optuna goes on with the study: one more trial (it takes a WAITING trial first).
    study.sampler = optuna.samplers.TPESampler(seed=0, n_startup_trials=1)
    dists = study.best_trial.distributions
    study.optimize(lambda t: sum(0 if isinstance(v, str) else float(v) for v in [t._suggest(k, d) for k, d in dists.items()]) % 1, n_trials=1)
    out["added"] = study.trials[-1].params
print(json.dumps(out))
`

/**
 * A study Optuna runs itself into journal argv[1] (TPE, seed 1, 12 trials, maximize): eta (log
 * float 0.05 … 0.5), max_depth (int 2 … 8), min_child_weight (log float 0.5 … 10), grow_policy
 * (categorical), three intermediate values each; trial 2 pruned, trial 4 failed.
 */
const OPTUNA_STUDY = `
import json, sys, warnings
warnings.filterwarnings("ignore")
import optuna
from optuna.storages import JournalStorage, JournalFileStorage
optuna.logging.set_verbosity(optuna.logging.ERROR)
study = optuna.create_study(study_name="optuna-made", direction="maximize",
    storage=JournalStorage(JournalFileStorage(sys.argv[1])), sampler=optuna.samplers.TPESampler(seed=1))
def objective(t):
    eta = t.suggest_float("eta", 0.05, 0.5, log=True)
    depth = t.suggest_int("max_depth", 2, 8)
    mcw = t.suggest_float("min_child_weight", 0.5, 10, log=True)
    policy = t.suggest_categorical("grow_policy", ["depthwise", "lossguide"])
    score = 0.9 - (eta - 0.3) ** 2 - 0.01 * abs(depth - 5) - 0.001 * mcw - (0.02 if policy == "lossguide" else 0)
    for step in range(1, 4):
        t.report(score - 0.1 / step, step)
    if t.number == 2:
        raise optuna.TrialPruned()
    if t.number == 4:
        raise ValueError("a failing trial")
    return score
study.optimize(objective, n_trials=12, catch=(ValueError,))
print(json.dumps({"best": study.best_params, "value": study.best_value, "number": study.best_trial.number,
    "complete": [{"number": t.number, "params": t.params, "value": t.value} for t in study.trials if t.state.name == "COMPLETE"],
    "states": [t.state.name for t in study.trials]}))
`

/** A study as `optuna.load_study` shows it. */
export interface LoadedStudy {
  studies: string[]
  direction: 'MAXIMIZE' | 'MINIMIZE'
  user_attrs: Record<string, unknown>
  trials: Array<{
    number: number
    state: string
    value: number | null
    params: Record<string, unknown>
    distributions: Record<string, Record<string, unknown>>
    intermediate: Record<string, number>
    user_attrs: Record<string, unknown>
    started: boolean
    completed: boolean
  }>
  best: { number: number; value: number; params: Record<string, unknown> } | null
  /** With `goOn`: the params of the trial Optuna ran next. */
  added?: Record<string, unknown>
}

/** What Optuna's own study (runOptunaStudy) ended with. */
export interface OptunaStudy {
  best: Record<string, unknown>
  value: number
  number: number
  complete: Array<{ number: number; params: Record<string, unknown>; value: number }>
  states: string[]
}

function python<T>(script: string, args: string[]): T {
  const r = spawnSync(PYTHON, ['-c', script, ...args], { encoding: 'utf8', timeout: 120_000 })
  if (r.status !== 0) throw new Error(`python exited ${r.status}: ${r.stderr}`)
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as T
}

/** Study `name` of journal `path` through `optuna.load_study`; `goOn`: Optuna then runs one more trial of it. */
export function loadStudy(path: string, name: string, goOn = false): LoadedStudy {
  return python<LoadedStudy>(LOAD_STUDY, goOn ? [path, name, 'go-on'] : [path, name])
}

/** Optuna writes its own study "optuna-made" into journal `path` (see OPTUNA_STUDY). */
export function runOptunaStudy(path: string): OptunaStudy {
  return python<OptunaStudy>(OPTUNA_STUDY, [path])
}
