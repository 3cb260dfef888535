#!/usr/bin/python3
"""Interop check: XGBoost loads a snaptrain model.json and predicts the same margins.

Usage: /usr/bin/python3 bench/xgboost_interop.py model.json features.csv
features.csv: header of feature names (same order as the model's features), empty cell = missing;
an optional last column named `margin` holds snaptrain's margins to compare with.
Prints one JSON line: {xgboost, rows, max_abs_margin_diff}. Exit 1 when the diff exceeds 1e-5.
Needs Debian's python3-xgboost (or pip xgboost); the product never depends on Python.
"""
import csv
import json
import math
import sys

import numpy as np
import xgboost as xgb


def read_csv(path):
    with open(path, newline='') as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    has_margin = header[-1] == 'margin'
    nf = len(header) - (1 if has_margin else 0)
    x = np.array([[float(v) if v != '' else math.nan for v in r[:nf]] for r in body], dtype=np.float32)
    ours = np.array([float(r[-1]) for r in body], dtype=np.float64) if has_margin else None
    return x.reshape(len(body), nf), ours, header[:nf]


def main():
    model_path, csv_path = sys.argv[1], sys.argv[2]
    x, ours, names = read_csv(csv_path)
    booster = xgb.Booster()
    booster.load_model(model_path)
    theirs = booster.predict(xgb.DMatrix(x, missing=math.nan, feature_names=names, feature_types=booster.feature_types), output_margin=True)
    diff = float(np.max(np.abs(theirs - ours))) if ours is not None and len(ours) else None
    print(json.dumps({'xgboost': xgb.__version__, 'rows': int(x.shape[0]), 'max_abs_margin_diff': diff}))
    return 0 if diff is None or diff <= 1e-5 else 1


if __name__ == '__main__':
    sys.exit(main())
