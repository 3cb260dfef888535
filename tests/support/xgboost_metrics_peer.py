"""XGBoost evaluates metrics on given predictions (tests/peer/gbdt/metrics-xgboost.test.ts,
metrics-multiclass-rank-xgboost.test.ts).

stdin: {"cases": [{"name", "y": [...], "p": [...], "w": [...] | null, "metrics": [...],
"params": {...}, "group_ptr": [...] (optional)}]}. For each case and metric, a booster with no
trees (num_boost_round=0) on a DMatrix whose base_margin is p: with reg:squarederror (identity
transform) its predictions are exactly p, so `eval_set` is XGBoost's metric of p. One booster per
metric (1.7.4 with several eval_metric and no rounds prints the last one's name and value for
each). With group_ptr, the rows get those query groups (and w is then one weight per group) and
the objective is rank:pairwise (identity transform too). With params.num_class = K, p is the
N × K margins (row-major) and the objective multi:softprob: the metrics see softmax(p), which the
case's "predictions" entry returns (the N × K probabilities XGBoost evaluated). stdout, one JSON
line: {case name: {metric as XGBoost prints it: value}} (nan as null).
"""
import json
import math
import sys

import numpy as np
import xgboost as xgb

out = {}
for case in json.load(sys.stdin)["cases"]:
    y = np.asarray(case["y"], dtype=np.float32)
    p = np.asarray(case["p"], dtype=np.float32)
    w = None if case.get("w") is None else np.asarray(case["w"], dtype=np.float32)
    num_class = case.get("params", {}).get("num_class", 0)
    group_ptr = case.get("group_ptr")
    objective = "multi:softprob" if num_class else "rank:pairwise" if group_ptr else "reg:squarederror"
    if num_class:
        p = p.reshape(len(y), num_class)
    dm = xgb.DMatrix(np.zeros((len(y), 1), dtype=np.float32), label=y, base_margin=p)
    if group_ptr is not None:
        dm.set_group(np.diff(np.asarray(group_ptr, dtype=np.uint32)))
    if w is not None:
        dm.set_weight(w)
    got = {}
    for metric in case["metrics"]:
        params = {"objective": objective, "base_score": 0.5, "eval_metric": metric, "verbosity": 0}
        params.update(case.get("params", {}))
        bst = xgb.train(params, dm, num_boost_round=0)
        if num_class:
            got["predictions"] = bst.predict(dm).ravel().tolist()
        else:
            assert np.array_equal(bst.predict(dm), p), "predictions are not the base margins"
        for item in bst.eval_set([(dm, "v")]).split("\t")[1:]:
            name, value = item[len("v-"):].rsplit(":", 1)
            v = float(value)
            got[name] = None if math.isnan(v) else v
    out[case["name"]] = got
print(json.dumps(out))
