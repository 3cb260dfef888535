#!/usr/bin/python3
"""XGBoost `hist` peer of `snaptrain bench --suite gbdt`.

Usage: /usr/bin/python3 bench/gbdt_peer.py TRAIN.f32 TRAIN_LABELS.f32 VALID.f32 VALID_LABELS.f32 \
    FEATURES ROUNDS [NTHREAD [BASE_SCORE]]
The .f32 files are little-endian float32: features row-major (rows x FEATURES, NaN = missing) and
labels (rows), written by bench/cli-gbdt.ts from the same seeded generator the page uses.
Trains binary:logistic, tree_method=hist, max_depth 6, eta 0.3, max_bin 256, no sampling, with
the validation AUC evaluated every round (as snaptrain does), and prints one JSON line:
{rows, rounds, roundSeconds[], dmatrixSeconds, validAuc, validAucs[], xgboost, nthread}.
Bench only: the product never depends on Python.
"""
import json
import sys
import time

import numpy as np
import xgboost as xgb


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


def main():
    if len(sys.argv) < 7:
        raise SystemExit(__doc__)
    nf, rounds = int(sys.argv[5]), int(sys.argv[6])
    nthread = int(sys.argv[7]) if len(sys.argv) > 7 else 2
    # xgboost 1.7 defaults base_score to 0.5; snaptrain (like xgboost >= 2) estimates it from the
    # labels, so comparisons pass snaptrain's value here to grow the same first tree.
    base_score = float(sys.argv[8]) if len(sys.argv) > 8 else None
    x, y = load(sys.argv[1], sys.argv[2], nf)
    vx, vy = load(sys.argv[3], sys.argv[4], nf)
    t0 = time.perf_counter()
    dtrain = xgb.DMatrix(x, label=y, missing=np.nan, nthread=nthread)
    dvalid = xgb.DMatrix(vx, label=vy, missing=np.nan, nthread=nthread)
    dmatrix = time.perf_counter() - t0
    params = {'objective': 'binary:logistic', 'eval_metric': 'auc', 'tree_method': 'hist', 'max_depth': 6,
              'eta': 0.3, 'max_bin': 256, 'nthread': nthread, 'seed': 0}
    if base_score is not None:
        params['base_score'] = base_score
    log = {}
    clock = RoundClock(time.perf_counter())
    xgb.train(params, dtrain, rounds, evals=[(dvalid, 'valid')], evals_result=log, verbose_eval=False, callbacks=[clock])
    seconds = [b - a for a, b in zip(clock.ends, clock.ends[1:])]
    print(json.dumps({'rows': int(y.size), 'rounds': rounds, 'roundSeconds': seconds, 'dmatrixSeconds': dmatrix,
                      'validAuc': float(log['valid']['auc'][-1]),
                      'validAucs': [float(a) for a in log['valid']['auc']], 'xgboost': xgb.__version__, 'nthread': nthread}))


if __name__ == '__main__':
    main()
