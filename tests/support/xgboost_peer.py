#!/usr/bin/python3
"""XGBoost as a test peer for the model-format tests (tests/unit/gbdt/*-interop.test.ts).

Features and labels travel as raw little-endian float32 files (NaN = missing), rows x features.
Every mode prints one JSON line on stdout.

  predict MODEL X ROWS F             margins of MODEL (.json or .ubj) on X, categorical features
                                     ('c' in the model) as categories: {"margins": [...]}
  train OUT_BASE X Y ROWS F TYPES N PARAMS_JSON
                                     trains N rounds (feature types comma-separated, 'c' =
                                     categorical), saves OUT_BASE.json and OUT_BASE.ubj:
                                     {"margins": [...]}
  refine MODEL OUT_BASE X Y ROWS F N PARAMS_JSON
                                     continues MODEL N rounds (xgb_model=MODEL), saves
                                     OUT_BASE.json and OUT_BASE.ubj: {"margins": [...], "trees": T}
"""
import json
import sys

import numpy as np
import xgboost as xgb


def matrix(path, rows, f):
    return np.fromfile(path, dtype='<f4').reshape(int(rows), int(f))


def dmatrix(x, types, names=None, y=None):
    cat = 'c' in (types or [])
    return xgb.DMatrix(x, y, missing=np.nan, feature_names=names, feature_types=types, enable_categorical=cat)


def out(margins, **extra):
    print(json.dumps({'margins': [float(v) for v in margins], **extra}))


def main():
    mode, args = sys.argv[1], sys.argv[2:]
    if mode == 'predict':
        model, xp, rows, f = args
        b = xgb.Booster()
        b.load_model(model)
        d = dmatrix(matrix(xp, rows, f), b.feature_types, b.feature_names)
        out(b.predict(d, output_margin=True))
    elif mode == 'train':
        base, xp, yp, rows, f, types, n, params = args
        x, y = matrix(xp, rows, f), np.fromfile(yp, dtype='<f4')
        d = dmatrix(x, types.split(','), y=y)
        b = xgb.train(json.loads(params), d, int(n))
        b.save_model(base + '.json')
        b.save_model(base + '.ubj')
        out(b.predict(d, output_margin=True))
    elif mode == 'refine':
        model, base, xp, yp, rows, f, n, params = args
        first = xgb.Booster()
        first.load_model(model)
        x, y = matrix(xp, rows, f), np.fromfile(yp, dtype='<f4')
        d = dmatrix(x, first.feature_types, first.feature_names, y)
        b = xgb.train(json.loads(params), d, int(n), xgb_model=model)
        b.save_model(base + '.json')
        b.save_model(base + '.ubj')
        out(b.predict(d, output_margin=True), trees=b.num_boosted_rounds())
    else:
        raise SystemExit('unknown mode ' + mode)


if __name__ == '__main__':
    main()
