#!/usr/bin/python3
"""XGBoost `hist` peer of `snaptrain bench --suite gbdt`.

Usage: /usr/bin/python3 bench/gbdt_peer.py TRAIN.f32 TRAIN_LABELS.f32 VALID.f32 VALID_LABELS.f32 \
    FEATURES ROUNDS [NTHREAD [BASE_SCORE [FEATURE_TYPES [PARAMS_JSON [ROWS_JSON]]]]]
The .f32 files are little-endian float32: features row-major (rows x FEATURES, NaN = missing) and
labels (rows), written by bench/cli-gbdt.ts from the same seeded generator the page uses.
Trains binary:logistic, tree_method=hist, max_depth 6, eta 0.3, max_bin 256, no sampling, with
the validation AUC evaluated every round (as snaptrain does), and prints one JSON line:
{rows, rounds, roundSeconds[], dmatrixSeconds, quantileSeconds[], validAuc, validAucs[], validMetrics, xgboost,
nthread}: validMetrics holds every eval_metric after every round ({name: [values]}, XGBoost's names);
validAuc and validAucs are there when auc is one of them.
quantileSeconds: $GBDT_PEER_QUANTILE_REPEATS (default 0; bench/cli-gbdt.ts asks for 3) constructions
of QuantileDMatrix (max_bin 256, the same threads) from the training features as in-memory float32
columns (a column-major copy, made untimed) — XGBoost's sketch + cuts + binning, what
`sketch+cuts+bin` times on our side.
FEATURE_TYPES (bench/quality.ts): one letter per feature, q numeric and c categorical (the
features' dictionary codes); with a c the DMatrix is built with enable_categorical=True, '-' (or
absent) keeps every feature numeric. PARAMS_JSON: extra booster parameters (max_cat_to_onehot,
max_cat_threshold; bench/quality.ts's tasks: objective, eval_metric (a list), num_class,
monotone_constraints "(1,0,-1)", huber_slope, ...) merged over the fixed ones.
ROWS_JSON (bench/quality.ts's tasks): what the rows carry besides features and labels, each a pair
of little-endian files [training, validation]: "weight" (float32 per row: DMatrix weight),
"base_margin" (float32, rows x outputs row-major: DMatrix base_margin) and "group" (uint32 query
group sizes, rows of a group contiguous: DMatrix set_group).
Bench only: the product never depends on Python.
"""
import json
import os
import sys
import time

import numpy as np
import xgboost as xgb


def quantile_seconds(x, y, nthread):
    """Seconds of each QuantileDMatrix construction from float32 columns (column-major)."""
    repeats = int(os.environ.get('GBDT_PEER_QUANTILE_REPEATS', '0'))
    columns = np.asfortranarray(x) if repeats > 0 else None
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        xgb.QuantileDMatrix(columns, label=y, missing=np.nan, max_bin=256, nthread=nthread)
        out.append(time.perf_counter() - t0)
    return out


class RoundClock(xgb.callback.TrainingCallback):
    """Wall time at the end of every round."""

    def __init__(self, start):
        super().__init__()
        self.ends = [start]

    def after_iteration(self, model, epoch, evals_log):
        self.ends.append(time.perf_counter())
        return False


def load(features_path, labels_path, nf):
    x = np.fromfile(features_path, dtype='<f4')
    y = np.fromfile(labels_path, dtype='<f4')
    if x.size != y.size * nf:
        raise SystemExit(f'{features_path}: {x.size} values, expected {y.size} rows x {nf} features')
    return x.reshape(y.size, nf), y


def rows_info(spec):
    """The DMatrix fields of ROWS_JSON for the training and the validation rows (two dicts)."""
    out = ({}, {})
    for field, dtype in (('weight', '<f4'), ('base_margin', '<f4'), ('group', '<u4')):
        for side, path in zip(out, spec.get(field, [])):
            side[field] = np.fromfile(path, dtype=dtype)
    return out


def main():
    if len(sys.argv) < 7:
        raise SystemExit(__doc__)
    nf, rounds = int(sys.argv[5]), int(sys.argv[6])
    nthread = int(sys.argv[7]) if len(sys.argv) > 7 else 2
    # xgboost 1.7 defaults base_score to 0.5; snaptrain (like xgboost >= 2) estimates it from the
    # labels, so comparisons pass snaptrain's value here to grow the same first tree.
    base_score = float(sys.argv[8]) if len(sys.argv) > 8 and sys.argv[8] != '-' else None
    types = sys.argv[9] if len(sys.argv) > 9 and sys.argv[9] != '-' else None
    extra = json.loads(sys.argv[10]) if len(sys.argv) > 10 else {}
    info = rows_info(json.loads(sys.argv[11]) if len(sys.argv) > 11 else {})
    if types is not None and (len(types) != nf or set(types) - {'q', 'c'}):
        raise SystemExit(f'FEATURE_TYPES: expected {nf} letters q or c, got {types!r}')
    x, y = load(sys.argv[1], sys.argv[2], nf)
    vx, vy = load(sys.argv[3], sys.argv[4], nf)
    # Categorical features: the same codes, typed 'c' so hist splits them natively.
    typed = {'feature_types': list(types), 'enable_categorical': True} if types and 'c' in types else {}
    quantile = quantile_seconds(x, y, nthread)
    t0 = time.perf_counter()
    dtrain = xgb.DMatrix(x, label=y, missing=np.nan, nthread=nthread, **typed)
    dvalid = xgb.DMatrix(vx, label=vy, missing=np.nan, nthread=nthread, **typed)
    for d, fields in zip((dtrain, dvalid), info):
        if 'weight' in fields:
            d.set_weight(fields['weight'])
        if 'base_margin' in fields:
            d.set_base_margin(fields['base_margin'])
        if 'group' in fields:
            d.set_group(fields['group'])
    dmatrix = time.perf_counter() - t0
    params = {'objective': 'binary:logistic', 'eval_metric': 'auc', 'tree_method': 'hist', 'max_depth': 6,
              'eta': 0.3, 'max_bin': 256, 'nthread': nthread, 'seed': 0}
    if base_score is not None:
        params['base_score'] = base_score
    params.update(extra)
    log = {}
    clock = RoundClock(time.perf_counter())
    xgb.train(params, dtrain, rounds, evals=[(dvalid, 'valid')], evals_result=log, verbose_eval=False, callbacks=[clock])
    seconds = [b - a for a, b in zip(clock.ends, clock.ends[1:])]
    metrics = {name: [float(v) for v in values] for name, values in log['valid'].items()}
    aucs = {'validAuc': metrics['auc'][-1], 'validAucs': metrics['auc']} if 'auc' in metrics else {}
    print(json.dumps({'rows': int(y.size), 'rounds': rounds, 'roundSeconds': seconds, 'dmatrixSeconds': dmatrix,
                      'quantileSeconds': quantile, **aucs, 'validMetrics': metrics,
                      'xgboost': xgb.__version__, 'nthread': nthread}))


if __name__ == '__main__':
    main()
