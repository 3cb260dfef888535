"""Ranking peer for tests/peer/gbdt/rank.test.ts: real XGBoost (1.7.4) on raw f32 files.

argv: model.json train.f32 train_y.f32 train_groups.u32 valid.f32 valid_y.f32 valid_groups.u32 F params.json [theirs.json]
Loads our model (snaptrain's rank:* JSON) and predicts the validation margins; trains XGBoost's
own rank:* (hist) with the same parameters and query groups, reporting its validation margins
and its own eval of the metric, and saving its model to theirs.json when given. One JSON line out.
"""
import json
import sys

import numpy as np
import xgboost as xgb


def matrix(path, f):
    x = np.fromfile(path, dtype=np.float32)
    return x.reshape(-1, f)


def sizes(path):
    ptr = np.fromfile(path, dtype=np.uint32)
    return np.diff(ptr)


def main():
    model, tx, ty, tg, vx, vy, vg, f, params = sys.argv[1:10]
    save = sys.argv[10] if len(sys.argv) > 10 else None
    f = int(f)
    params = json.loads(params)
    names = [f"f{i}" for i in range(f)]
    dtrain = xgb.DMatrix(matrix(tx, f), label=np.fromfile(ty, dtype=np.float32), feature_names=names)
    dtrain.set_group(sizes(tg))
    dvalid = xgb.DMatrix(matrix(vx, f), label=np.fromfile(vy, dtype=np.float32), feature_names=names)
    dvalid.set_group(sizes(vg))
    ours = xgb.Booster(model_file=model)
    ours_margins = ours.predict(dvalid, output_margin=True)
    rounds = params.pop("num_round")
    log = {}
    theirs = xgb.train(params, dtrain, rounds, evals=[(dvalid, "valid")], evals_result=log, verbose_eval=False)
    if save:
        theirs.save_model(save)
    out = {
        "ours": [float(v) for v in ours_margins],
        "theirs": [float(v) for v in theirs.predict(dvalid, output_margin=True)],
        "eval": {k: v[-1] for k, v in log["valid"].items()},
        "version": xgb.__version__,
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
