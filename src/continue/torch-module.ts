/**
 * The recommender's PyTorch module as Python source, shared by the continue bundle's DDP job
 * (torch-ddp.ts pastes it whole into torch_ddp.py) and bench/recsys_torch.py (runs this same text):
 * raw column values → model inputs exactly as snaptrain featurizes them (features.json: value hash
 * mod buckets, signed log1p, mean/std, missing indicators, fixed-length lists, pooled bags), the
 * training rows' feature statistics for a cold start (feature_stats per process, merge_stats over
 * processes, features_from: features.ts FeatureStats), the embeddings + cross + MLP module whose
 * state_dict names are the tensors of model.safetensors (models/recsys/safetensors.ts), snaptrain's
 * init, and a safetensors reader/writer (F32, I64). N = rows, S = sparse features, Cd = dense inputs,
 * D = embedding dim, L = longest bag. Needs numpy and torch (featurize needs numpy only), and the
 * bundle's runtime snaptrain_continue.py (runtime-py.ts) importable — beside torch_ddp.py, or on
 * sys.path (the bench writes it beside its work folder): the value hashes of ids and bag items are its
 * value_hashes (src/data/row-key.ts's value hash, which is the loader's hash32), vectorised over a column.
 */

/** Python source: imports (numpy, torch, snaptrain_continue as sc), feature_stats, merge_stats, features_from, featurize, Cross, Model, init_like_snaptrain, read/write_safetensors. */
export const TORCH_MODULE = `import json, math, os
import numpy as np, torch, torch.nn as nn
import snaptrain_continue as sc  # the bundle's shared runtime: value hashes (the row keys' and ids' one hash)

# features.ts: distinct values are counted up to half of the 2^18 default bucket cap.
CARDINALITY_CAP, MAX_DEFAULT_BUCKETS = 2**17, 2**18


def _column(columns, name):
    if name not in columns:
        raise KeyError("column '%s' is not among the rows read (%s)" % (name, ", ".join(columns)))
    return columns[name]


def _values(columns, name):
    """A column as a Python list (numpy, masked, pandas or a list): a masked (null) value is None."""
    c = _column(columns, name)
    return c.tolist() if hasattr(c, "tolist") else list(c)


def _hashes(values):
    """snaptrain's value hash of each value (uint32 numpy): sc.value_hashes, numbers vectorised, Python objects
    once per distinct value; a float's NaN is hashed as a value (null ids are refused before)."""
    if type(values) is np.ndarray and values.dtype.kind == "f":
        return sc.value_hashes(values, float_nulls=np.zeros(len(values), bool))
    return sc.value_hashes(values)


def _first_distinct(h):
    """The distinct hashes in first-seen order, capped (features.ts adds them row by row up to the cap)."""
    u, first = np.unique(h, return_index=True)
    return set(u[np.argsort(first, kind="stable")][:CARDINALITY_CAP].tolist())


def _floats(columns, name):
    """A column as the float32 values the loader decodes it to, in float64 [N]; None, masked and NaN are null (NaN)."""
    c = _column(columns, name)
    if isinstance(c, np.ma.MaskedArray):
        return np.where(np.ma.getmaskarray(c), math.nan, c.data.astype(np.float32).astype(np.float64))
    x = c if isinstance(c, np.ndarray) and c.dtype.kind in "fiub" else np.array(_values(columns, name), np.float64)
    return x.astype(np.float32).astype(np.float64)


def _list_floats(columns, name, length):
    """A list column's first \`length\` elements as float32 values in float64 [N x length]; missing and null: NaN."""
    rows = _values(columns, name)
    try:
        x = np.array(rows, np.float64)  # every row a list of \`length\` numbers (None -> NaN)
    except (TypeError, ValueError):
        x = None
    if x is None or x.shape != (len(rows), length):
        x = np.full((len(rows), length), math.nan)
        for r, v in enumerate(rows):
            if v is not None and len(v):
                v = v[:length]
                x[r, :len(v)] = np.array(v, np.float64)
    return x.astype(np.float32).astype(np.float64)


def _buckets(name, distinct, params):
    b = params.get("buckets")
    if isinstance(b, int):
        return b
    return (b or {}).get(name, max(1, min(2 * distinct, MAX_DEFAULT_BUCKETS)))


def _ids(columns, name):
    """A sparse column's value hashes (uint32); a null is refused as snaptrain's loader refuses it."""
    c = _column(columns, name)
    if not isinstance(c, np.ndarray):
        c = c.tolist() if hasattr(c, "tolist") else list(c)
    if isinstance(c, np.ma.MaskedArray):
        null = np.ma.getmaskarray(c).any()
    else:
        null = (not isinstance(c, np.ndarray) or c.dtype == object) and None in list(c)
    if null:
        raise ValueError("sparse column '%s': a null value (snaptrain's embedding ids have no null)" % name)
    return _hashes(c)


def _bag(columns, name):
    """A bag column's item hashes (uint32, row after row; null rows and null items dropped) and items per row."""
    rows = _values(columns, name)
    lengths = np.array([0 if r is None else len(r) for r in rows], np.int64)
    items = [v for r in rows if r is not None for v in r]
    if None in items:
        keep = np.array([v is not None for v in items])
        lengths = np.bincount(np.repeat(np.arange(len(rows)), lengths)[keep], minlength=len(rows))
        items = [v for v in items if v is not None]
    return _hashes(items), lengths


def feature_stats(columns, kinds, params):
    """Statistics of training rows as snaptrain gathers them (features.ts FeatureStats): distinct hashes of
    each sparse column and of each bag's items (capped), moments of each dense column (after signed log1p
    where asked), each list's length. kinds = {sparse, bags, dense, lists: [column names]}. Partial
    statistics of several row sets combine with merge_stats."""
    log1p, out = set(params.get("log1p", [])), dict(sparse={}, bags={}, dense={}, lists={})
    for name in kinds["sparse"]:
        out["sparse"][name] = _first_distinct(_ids(columns, name))
    for name in kinds["bags"]:
        out["bags"][name] = _first_distinct(_bag(columns, name)[0])
    for name in kinds["dense"]:
        x = _floats(columns, name)
        t = x[~np.isnan(x)]
        t = np.sign(t) * np.log1p(np.abs(t)) if name in log1p else t
        mean = float(t.mean()) if len(t) else 0.0
        out["dense"][name] = (len(t), mean, float(((t - mean) ** 2).sum()), int(np.isnan(x).sum()))
    for name in kinds["lists"]:
        out["lists"][name] = next((len(v) for v in _values(columns, name) if v is not None), 0)
    return out


def merge_stats(parts):
    """One feature_stats of the rows of all \`parts\` (in order): distinct sets united, moments combined
    (Chan et al.), the first non-zero list length."""
    out = dict(sparse={}, bags={}, dense={}, lists={})
    for p in parts:
        for kind in ("sparse", "bags"):
            for name, s in p[kind].items():
                out[kind].setdefault(name, set()).update(s)
        for name, (n, mean, m2, nulls) in p["dense"].items():
            n0, mean0, m20, nulls0 = out["dense"].get(name, (0, 0.0, 0.0, 0))
            total = n0 + n
            delta = mean - mean0
            out["dense"][name] = (total, mean0 + delta * n / total if total else 0.0,
                                  m20 + m2 + delta * delta * n0 * n / total if total else 0.0, nulls0 + nulls)
        for name, length in p["lists"].items():
            out["lists"][name] = out["lists"].get(name) or length
    return out


def features_from(stats, kinds, label, params):
    """features.json for a fresh start from the training rows' feature_stats, as snaptrain derives it
    (features.ts finish): columns sparse, bags, dense, lists; buckets min(2 x distinct, 2^18) or params'."""
    d, cols, offset = params.get("embedding_dim", 16), [], 0
    for kind, names in (("sparse", kinds["sparse"]), ("bag", kinds["bags"])):
        for name in names:
            seen = min(len(stats["sparse" if kind == "sparse" else "bags"][name]), CARDINALITY_CAP)
            c = dict(name=name, kind=kind, buckets=_buckets(name, seen, params), cardinality=seen, table_offset=offset)
            if kind == "bag":
                pooling = params.get("pooling", "mean")
                c["pooling"] = pooling if isinstance(pooling, str) else pooling.get(name, "mean")
            offset += c["buckets"]
            cols.append(c)
    for name in kinds["dense"]:
        n, mean, m2, nulls = stats["dense"][name]
        std = math.sqrt(m2 / n) if n > 1 else 0.0
        cols.append(dict(name=name, kind="dense", log1p=name in set(params.get("log1p", [])),
                         mean=mean if n else 0.0, std=std if std > 0 else 1.0, indicator=nulls > 0))
    for name in kinds["lists"]:
        cols.append(dict(name=name, kind="list", length=stats["lists"][name]))
    width = sum(d if c["kind"] in ("sparse", "bag") else 2 if c.get("indicator") else c.get("length", 1)
                for c in cols)
    dcn = params.get("architecture") == "dcn"
    cross = dict(layers=params.get("cross_layers", 2) if dcn else 0, rank=params.get("cross_rank", 0) if dcn else 0)
    return dict(label=label, columns=cols, model=dict(embedding_dim=d, input_width=width, cross=cross,
                                                      layers=params.get("layers", [256, 128]), total_rows=offset))


def featurize(columns, F):
    """Raw values (name -> sequence; a DataFrame works) -> the model's inputs [x_s, x_d, bag items, bag weights, ...]:
    x_s int64 [N x S] row of each table, x_d float32 [N x Cd], per bag items int64 [N x L] and pooling weights [N x L]
    (weight 0: no item)."""
    cols = F["columns"]
    n = len(_column(columns, cols[0]["name"]))
    sparse = [c for c in cols if c["kind"] == "sparse"]
    x_s = np.zeros((n, len(sparse)), np.int64)
    for i, c in enumerate(sparse):
        x_s[:, i] = _ids(columns, c["name"]).astype(np.int64) % c["buckets"]
    parts, bags = [], []
    for c in cols:
        if c["kind"] == "bag":
            h, lengths = _bag(columns, c["name"])
            idx = np.zeros((n, max(1, int(lengths.max(initial=0)))), np.int64)
            w = np.zeros(idx.shape, np.float32)
            row = np.repeat(np.arange(n), lengths)
            at = np.arange(len(h)) - np.repeat(np.cumsum(lengths) - lengths, lengths)  # item's place in its row
            idx[row, at] = h.astype(np.int64) % c["buckets"]
            w[row, at] = 1.0 if c["pooling"] == "sum" else np.repeat(1.0 / np.maximum(1, lengths), lengths)
            bags += [torch.from_numpy(idx), torch.from_numpy(w)]
        elif c["kind"] == "dense":
            x = _floats(columns, c["name"])
            missing = np.isnan(x)
            t = np.sign(x) * np.log1p(np.abs(x)) if c["log1p"] else x
            parts.append(np.where(missing, 0.0, (t - c["mean"]) / c["std"]))
            if c["indicator"]:
                parts.append(missing.astype(np.float64))
        elif c["kind"] == "list":
            x = _list_floats(columns, c["name"], c["length"])
            parts += list(np.where(np.isnan(x), 0.0, x).T)
    x_d = np.stack(parts, 1).astype(np.float32) if parts else np.zeros((n, 0), np.float32)
    return [torch.from_numpy(x_s), torch.from_numpy(x_d)] + bags


class Cross(nn.Module):
    """One DCN-v2 cross layer: x0 * (W x + b) + x, W full (w) or low rank (u after v)."""

    def __init__(self, width, rank):
        super().__init__()
        if rank == 0:
            self.w = nn.Linear(width, width)
        else:
            self.v, self.u = nn.Linear(width, rank, bias=False), nn.Linear(rank, width)

    def forward(self, x0, x):
        return x0 * (self.w(x) if hasattr(self, "w") else self.u(self.v(x))) + x


class Model(nn.Module):
    """Embeddings (one table per sparse and bag feature) + cross layers + MLP, features.json's model."""

    def __init__(self, F):
        super().__init__()
        m, d = F["model"], F["model"]["embedding_dim"]
        self.emb = nn.ModuleList(nn.Embedding(c["buckets"], d) for c in F["columns"] if c["kind"] == "sparse")
        self.bag = nn.ModuleList(nn.Embedding(c["buckets"], d) for c in F["columns"] if c["kind"] == "bag")
        cross = m.get("cross") or dict(layers=0, rank=0)
        self.cross = nn.ModuleList(Cross(m["input_width"], cross["rank"]) for _ in range(cross["layers"]))
        width, layers = m["input_width"], []
        for h in m["layers"]:
            layers += [nn.Linear(width, h), nn.ReLU()]
            width = h
        self.mlp = nn.Sequential(*layers, nn.Linear(width, 1))

    def forward(self, s, d, *bags):
        """Logits [N] of featurize's inputs: sparse rows s [N x S], dense d [N x Cd], (items, weights) per bag."""
        pooled = [(e(bags[2 * k]) * bags[2 * k + 1].unsqueeze(2)).sum(1) for k, e in enumerate(self.bag)]
        x0 = torch.cat([e(s[:, i]) for i, e in enumerate(self.emb)] + pooled + [d], 1)
        x = x0
        for layer in self.cross:
            x = layer(x0, x)
        return self.mlp(x).squeeze(1)


def init_like_snaptrain(model, seed):
    """A fresh model initialised as snaptrain's init.ts (not its random stream): embeddings N(0, 0.01^2),
    MLP weights U(+-1/sqrt(C)), cross kernels Glorot uniform, biases 0."""
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.startswith(("emb.", "bag.")):
                p.copy_(torch.randn(p.shape, generator=g) * 0.01)
            elif name.endswith("bias"):
                p.zero_()
            elif name.startswith("cross."):
                bound = math.sqrt(6 / (p.shape[0] + p.shape[1]))
                p.copy_(torch.rand(p.shape, generator=g) * 2 * bound - bound)
            else:
                bound = 1 / math.sqrt(p.shape[1])
                p.copy_(torch.rand(p.shape, generator=g) * 2 * bound - bound)
    return model


SAFETENSORS_DTYPES = {"F32": "<f4", "I64": "<i8"}


def read_safetensors(path, metadata=False):
    """name -> tensor of a safetensors file (F32 and I64, read here), and its __metadata__ with metadata=True."""
    raw = open(path, "rb").read()
    n = int.from_bytes(raw[:8], "little")
    head = json.loads(raw[8:8 + n])
    out = {}
    for k, t in head.items():
        if k == "__metadata__":
            continue
        if t["dtype"] not in SAFETENSORS_DTYPES:
            raise ValueError("%s: tensor %s has dtype %s (expected F32 or I64)" % (path, k, t["dtype"]))
        dt = np.dtype(SAFETENSORS_DTYPES[t["dtype"]])
        b, e = t["data_offsets"]
        out[k] = torch.from_numpy(np.frombuffer(raw, dt, (e - b) // dt.itemsize, 8 + n + b).reshape(t["shape"]).copy())
    return (out, head.get("__metadata__", {})) if metadata else out


def write_safetensors(path, tensors, metadata):
    """A safetensors file of name -> tensor (float32 as F32, int64 as I64) with string metadata."""
    header, blobs, offset = {"__metadata__": dict(format="pt", producer="snaptrain", **metadata)}, [], 0
    for name, t in tensors.items():
        a = t.detach().cpu().contiguous().numpy()
        dtype = "I64" if a.dtype == np.int64 else "F32"
        blob = a.astype("<i8" if dtype == "I64" else "<f4").tobytes()
        header[name] = dict(dtype=dtype, shape=list(a.shape), data_offsets=[offset, offset + len(blob)])
        blobs.append(blob)
        offset += len(blob)
    head = json.dumps(header).encode("utf-8")
    head += b" " * ((8 - (8 + len(head)) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(len(head).to_bytes(8, "little") + head + b"".join(blobs))
    os.replace(path + ".tmp", path)
`
