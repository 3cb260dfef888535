#!/usr/bin/python3
"""The recommender's safetensors export in PyTorch: load model.safetensors + features.json into the
PyTorch module of the continue bundle's torch_ddp.py (src/continue/torch-module.ts TORCH_MODULE, run as it is pasted,
with the bundle's runtime snaptrain_continue.py written into --work for it to import: src/continue/runtime-py.ts),
featurize the raw rows in Python per features.json, compare its predictions with
`snaptrain predict --model model.bin` row by row, then continue training from the loaded weights
(a warm start: the first loss is our model's loss, not a fresh model's ~0.69).

Needs Debian's python3-torch (not a snaptrain dependency). Steps (each skipped when its output is
there): generate a clicks table, `snaptrain train --model recsys` with a 20% validation split,
`snaptrain export --format safetensors`, `snaptrain predict`, `snaptrain scan` (the rows, whose
values give the split: README "The validation split and row identity"). Usage: /usr/bin/python3 bench/recsys_torch.py [--work DIR] [--rows N]
[--backend gpu|cpu] [--steps K] [--json]
"""
import argparse, json, os, subprocess, sys, time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CLI = ["node", os.path.join(ROOT, "bin", "snaptrain.js")]


def sh(args, out=None):
    """Runs a snaptrain command from the repository root; stdout to `out` when given."""
    t0 = time.time()
    with open(out, "w") if out else open(os.devnull, "w") as sink:
        r = subprocess.run(CLI + args, cwd=ROOT, stdout=sink if out else subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit("snaptrain %s failed (%d): %s" % (args[0], r.returncode, r.stderr.strip()[-2000:]))
    print("  snaptrain %s: %.1f s" % (args[0], time.time() - t0), file=sys.stderr)


def snippet_module(work):
    """The continue bundle's PyTorch module: TORCH_MODULE's text (what torch_ddp.py pastes), executed as a module
    namespace, after the bundle's runtime (CONTINUE_RUNTIME_PY) is written to work/snaptrain_continue.py for it to import."""
    code = ("Promise.all([import('./src/continue/torch-module.ts'), import('./src/continue/runtime-py.ts')])"
            ".then(([m, r]) => process.stdout.write(JSON.stringify([m.TORCH_MODULE, r.CONTINUE_RUNTIME_PY])))")
    out = subprocess.run(["npx", "--no-install", "tsx", "-e", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    module, runtime = json.loads(out)
    with open(os.path.join(work, "snaptrain_continue.py"), "w") as f:
        f.write(runtime)
    sys.path.insert(0, work)
    ns = {"__name__": "snaptrain_snippet"}
    exec(compile(module, "torch-module.ts:TORCH_MODULE", "exec"), ns)
    return ns


def evaluate(model, X, y):
    """Mean binary cross-entropy of the model on all rows of inputs X (featurize's list)."""
    import torch
    with torch.no_grad():
        return float(torch.nn.functional.binary_cross_entropy_with_logits(model(*X), y))


def fit(model, X, y, epochs, lr, batch_size, weight_decay=0.0, max_steps=None, seed=0):
    """Plain torch AdamW over shuffled batches of inputs X (the bench's warm- vs fresh-start check; the bundle's
    torch_ddp.py trains with snaptrain's own optimizer instead); returns each step's loss (before its update)."""
    import torch
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    g, losses = torch.Generator().manual_seed(seed), []
    for epoch in range(epochs):
        for idx in torch.randperm(len(y), generator=g).split(batch_size):
            if max_steps is not None and len(losses) >= max_steps:
                return losses
            loss = torch.nn.functional.binary_cross_entropy_with_logits(model(*[t[idx] for t in X]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss))
    return losses


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", default=os.path.join(ROOT, "bench", "results", "recsys-torch"))
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--backend", default="gpu", choices=["gpu", "cpu"])
    ap.add_argument("--steps", type=int, default=30, help="warm-start training steps")
    ap.add_argument("--params", default='{"epochs":2,"batch_size":512,"layers":[32,16],"embedding_dim":8,"lr":0.003}')
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    data, run = os.path.join(a.work, "data"), os.path.join(a.work, "run")
    table = os.path.join(data, "clicks")
    print("recsys_torch: %s" % a.work, file=sys.stderr)
    if not os.path.exists(table):
        sh(["data", "--out", data, "--rows", str(a.rows), "--marketing-rows", "500", "--tables", "clicks"])
    if not os.path.exists(os.path.join(run, "model.bin")):
        sh(["train", "--model", "recsys", "--table", table, "--label", "label", "--valid-fraction", "0.2", "--seed", "0",
            "--params", a.params, "--backend", a.backend, "--out", run])
    st = os.path.join(run, "model.safetensors")
    sh(["export", "--model", os.path.join(run, "model.bin"), "--format", "safetensors", "--out", st])
    preds_csv = os.path.join(run, "preds.csv")
    sh(["predict", "--model", os.path.join(run, "model.bin"), "--table", table, "--out", preds_csv]
       + (["--cpu"] if a.backend == "cpu" else []))
    rows_path = os.path.join(run, "rows.jsonl")
    sh(["scan", "--table", table], rows_path)

    m = snippet_module(a.work)
    sc = m["sc"]
    torch, np = m["torch"], m["np"]
    torch.manual_seed(0)
    torch.set_num_threads(min(4, os.cpu_count() or 1))
    F = json.load(open(os.path.join(run, "features.json")))
    manifest = json.load(open(os.path.join(run, "manifest.json")))
    rows = [json.loads(l) for l in open(rows_path)]
    columns = {k: [r.get(k) for r in rows] for k in rows[0]}
    ours = np.loadtxt(preds_csv, delimiter=",", skiprows=1, dtype=np.float64)
    assert len(rows) == len(ours), (len(rows), len(ours))

    t0 = time.time()
    X = m["featurize"](columns, F)
    featurize_s = time.time() - t0
    y = torch.tensor(columns[F["label"]], dtype=torch.float32)
    model = m["Model"](F)
    model.load_state_dict(m["read_safetensors"](st))  # strict: every name and shape must match
    with torch.no_grad():
        logits = model(*X).double().numpy()
    probs = 1 / (1 + np.exp(-logits))
    # snaptrain predict's logit is σ⁻¹ of the f32 probability (predict-run.ts), so a saturated row
    # reads ±Infinity there: compare logits on the other rows, and the sign on those.
    finite = np.isfinite(ours[:, 0])
    d_logit = float(np.abs(logits - ours[:, 0])[finite].max())
    infinite_agree = bool(np.all(np.sign(logits[~finite]) == np.sign(ours[~finite, 0])))
    d_prob = float(np.abs(probs - ours[:, 1]).max())

    # The run's validation rows: the seeded split by row key training used (src/data/row-key.ts; the runtime's
    # validation_mask), whose default key columns are the label and the features, list columns left out, sorted by name.
    keys = sorted(k for k in rows[0] if not isinstance(rows[0][k], list))
    split = dict(kind="fraction", fraction=manifest["validation"]["fraction"], seed=manifest["seed"], key=keys)
    valid = sc.validation_mask(dict(validation=split), {k: columns[k] for k in keys})
    assert valid.sum() == manifest["rows_valid"], (int(valid.sum()), manifest["rows_valid"])
    vi, ti = torch.from_numpy(np.flatnonzero(valid)), torch.from_numpy(np.flatnonzero(~valid))
    Xv, Xt = [t[vi] for t in X], [t[ti] for t in X]
    p = np.clip(ours[valid, 1], 1e-7, 1 - 1e-7)
    yv = y[vi].double().numpy()
    ours_loss = float(-(yv * np.log(p) + (1 - yv) * np.log(1 - p)).mean())
    manifest_loss = manifest["metrics"][-1].get("logloss") if manifest.get("metrics") else None
    warm_valid = evaluate(model, Xv, y[vi])
    fresh = m["Model"](F)
    fresh_valid = evaluate(fresh, Xv, y[vi])
    P = manifest["params"]
    steps = dict(epochs=100, lr=P["lr"], batch_size=P["batch_size"], weight_decay=P.get("weight_decay", 0.0),
                 max_steps=a.steps, seed=1)
    t0 = time.time()
    warm_losses = fit(model, Xt, y[ti], **steps)
    fit_s = time.time() - t0
    fresh_losses = fit(fresh, Xt, y[ti], **steps)
    out = dict(
        rows=len(rows), valid_rows=int(valid.sum()), backend=a.backend, torch=torch.__version__,
        max_abs_diff_prediction=d_prob, max_abs_diff_logit=d_logit, infinite_logits=int((~finite).sum()),
        valid_logloss_ours=ours_loss, valid_logloss_manifest=manifest_loss,
        valid_logloss_torch_loaded=warm_valid, valid_logloss_torch_fresh=fresh_valid,
        warm_first_losses=warm_losses[:5], warm_last_loss=warm_losses[-1],
        fresh_first_losses=fresh_losses[:5], fresh_last_loss=fresh_losses[-1],
        valid_logloss_after_warm_steps=evaluate(model, Xv, y[vi]), steps=len(warm_losses),
        featurize_seconds=featurize_s, fit_seconds=fit_s,
    )
    print("max |Δ| prediction %.3g (logit %.3g; %d saturated rows, same sign: %s) over %d rows"
          % (d_prob, d_logit, (~finite).sum(), infinite_agree, len(rows)))
    print("validation logloss: ours %.6f, torch loaded %.6f, torch fresh %.6f" % (ours_loss, warm_valid, fresh_valid))
    print("first training losses: warm %s, fresh %s" % (
        ", ".join("%.4f" % v for v in warm_losses[:3]), ", ".join("%.4f" % v for v in fresh_losses[:3])))
    if a.json:
        print(json.dumps(out))
    ok = d_prob <= 1e-5 and infinite_agree and abs(warm_valid - ours_loss) <= 1e-4
    if not ok:
        sys.exit("FAIL: predictions or loaded loss differ from snaptrain's")


if __name__ == "__main__":
    main()
