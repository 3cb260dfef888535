/**
 * The PyTorch half of the recommender's "continue at scale" snippet, as Python source: raw column
 * values → model inputs exactly as snaptrain featurizes them (features.json: MurmurHash3 x86_32
 * buckets, signed log1p, mean/std, missing indicators, fixed-length lists, pooled bags), the
 * embeddings + cross + MLP module whose state_dict names are the tensors of model.safetensors (models/recsys/safetensors.ts),
 * a safetensors reader (the `safetensors` package when installed, else the format read directly),
 * and the training loop. N = rows, S = sparse features, Cd = dense inputs, D = embedding dim, L = longest bag.
 * The snippet (snippet.ts) pastes it whole; bench/recsys_torch.py runs this same text.
 */

/** Python source: imports, murmur3, hash_value, features_from, featurize, Cross, Model, read_safetensors, evaluate, fit. */
export const TORCH_MODULE = `import json, math, os, struct
import numpy as np, torch, torch.nn as nn

M32 = 0xFFFFFFFF


def murmur3(data):
    """MurmurHash3 x86_32, seed 0, of bytes (unsigned result)."""
    h, n = 0, len(data)
    for i in range(0, n, 4):  # 4-byte blocks, then the 1-3 tail bytes (no rotate-multiply for the tail)
        k = int.from_bytes(data[i:i + 4], "little") * 0xCC9E2D51 & M32
        k = ((k << 15) | (k >> 17)) * 0x1B873593 & M32
        h ^= k
        if i + 4 <= n:
            h = ((h << 13) | (h >> 19)) & M32
            h = (h * 5 + 0xE6546B64) & M32
    h ^= n
    h = (h ^ (h >> 16)) * 0x85EBCA6B & M32
    h = (h ^ (h >> 13)) * 0xC2B2AE35 & M32
    return h ^ (h >> 16)


def hash_value(v):
    """snaptrain's value hash: strings by UTF-8, integers (and integer-valued floats, booleans) as int64 LE."""
    if isinstance(v, str):
        return murmur3(v.encode("utf-8"))
    if isinstance(v, (bytes, bytearray)):
        return murmur3(bytes(v))
    if isinstance(v, (float, np.floating)) and not (float(v).is_integer() and abs(v) < 2**53):
        return murmur3(struct.pack("<d", float(v)))
    return murmur3((int(v) & 0xFFFFFFFFFFFFFFFF).to_bytes(8, "little"))


def _values(columns, name):
    return list(columns[name])


def _float(v):
    """A value as the float32 the loader decodes it to; None and NaN are null."""
    return math.nan if v is None else float(np.float32(v))


def _buckets(name, distinct, params):
    b = params.get("buckets")
    return b if isinstance(b, int) else (b or {}).get(name, max(1, min(2 * distinct, 2**18)))


def features_from(columns, sparse, dense, label, params, bags=()):
    """features.json for a fresh start, from the training rows as snaptrain derives it."""
    log1p, d, cols = set(params.get("log1p", [])), params.get("embedding_dim", 16), []
    for i, name in enumerate(sparse):
        seen = len({hash_value(v) for v in set(_values(columns, name))})
        cols.append(dict(name=name, kind="sparse", buckets=_buckets(name, seen, params)))
    for name in bags:
        seen = len({hash_value(v) for row in _values(columns, name) if row is not None for v in row if v is not None})
        pooling = params.get("pooling", "mean")
        pooling = pooling if isinstance(pooling, str) else pooling.get(name, "mean")
        cols.append(dict(name=name, kind="bag", buckets=_buckets(name, seen, params), pooling=pooling))
    for name in dense:
        x = np.array([_float(v) for v in _values(columns, name)])
        t = x[~np.isnan(x)]
        t = np.sign(t) * np.log1p(np.abs(t)) if name in log1p else t
        std = float(t.std()) if len(t) > 1 else 0.0
        cols.append(dict(name=name, kind="dense", log1p=name in log1p, mean=float(t.mean()) if len(t) else 0.0,
                         std=std if std > 0 else 1.0, indicator=bool(np.isnan(x).any())))
    width = (len(sparse) + len(bags)) * d + sum(2 if c.get("indicator") else 1 for c in cols if c["kind"] == "dense")
    dcn = params.get("architecture") == "dcn"
    cross = dict(layers=params.get("cross_layers", 2) if dcn else 0, rank=params.get("cross_rank", 0))
    return dict(label=label, columns=cols, model=dict(embedding_dim=d, input_width=width, cross=cross,
                                                      layers=params.get("layers", [256, 128])))


def _hashed(memo, v, buckets):
    if v not in memo:
        memo[v] = hash_value(v) % buckets
    return memo[v]


def featurize(columns, F):
    """Raw values (name -> sequence; a DataFrame works) -> the model's inputs [x_s, x_d, bag items, bag weights, ...]:
    x_s int64 [N x S] row of each table, x_d float32 [N x Cd], per bag items int64 [N x L] and pooling weights [N x L]."""
    cols = F["columns"]
    n = len(_values(columns, cols[0]["name"]))
    sparse = [c for c in cols if c["kind"] == "sparse"]
    x_s = np.zeros((n, len(sparse)), np.int64)
    for i, c in enumerate(sparse):
        memo = {}
        x_s[:, i] = [_hashed(memo, v, c["buckets"]) for v in _values(columns, c["name"])]
    parts, bags = [], []
    for c in cols:
        if c["kind"] == "bag":
            memo = {}
            rows = [[_hashed(memo, v, c["buckets"]) for v in row if v is not None] if row is not None else []
                    for row in _values(columns, c["name"])]
            idx = np.zeros((n, max([1] + [len(r) for r in rows])), np.int64)
            w = np.zeros(idx.shape, np.float32)
            for r, items in enumerate(rows):
                idx[r, :len(items)] = items
                w[r, :len(items)] = 1.0 if c["pooling"] == "sum" else 1.0 / max(1, len(items))
            bags += [torch.from_numpy(idx), torch.from_numpy(w)]
        elif c["kind"] == "dense":
            x = np.array([_float(v) for v in _values(columns, c["name"])])
            missing = np.isnan(x)
            t = np.sign(x) * np.log1p(np.abs(x)) if c["log1p"] else x
            parts.append(np.where(missing, 0.0, (t - c["mean"]) / c["std"]))
            if c["indicator"]:
                parts.append(missing.astype(np.float64))
        elif c["kind"] == "list":
            for e in range(c["length"]):
                x = np.array([_float(v[e]) if v is not None and e < len(v) else math.nan
                              for v in _values(columns, c["name"])])
                parts.append(np.where(np.isnan(x), 0.0, x))
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


def read_safetensors(path):
    """name -> tensor of a safetensors file (F32 tensors; the package when installed, else read here)."""
    try:
        from safetensors.torch import load_file
        return load_file(path)
    except ImportError:
        raw = open(path, "rb").read()
        n = int.from_bytes(raw[:8], "little")
        head = json.loads(raw[8:8 + n])
        return {k: torch.from_numpy(np.frombuffer(raw, "<f4", (t["data_offsets"][1] - t["data_offsets"][0]) // 4,
                                                  8 + n + t["data_offsets"][0]).reshape(t["shape"]).copy())
                for k, t in head.items() if k != "__metadata__"}


def evaluate(model, X, y):
    """Mean binary cross-entropy of the model on all rows of inputs X (featurize's list)."""
    with torch.no_grad():
        return float(nn.functional.binary_cross_entropy_with_logits(model(*X), y))


def fit(model, X, y, epochs, lr, batch_size, weight_decay=0.0, max_steps=None, seed=0):
    """AdamW over shuffled batches of inputs X; returns each step's loss (before its update)."""
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    g, losses = torch.Generator().manual_seed(seed), []
    for epoch in range(epochs):
        for idx in torch.randperm(len(y), generator=g).split(batch_size):
            if max_steps is not None and len(losses) >= max_steps:
                return losses
            loss = nn.functional.binary_cross_entropy_with_logits(model(*[t[idx] for t in X]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss))
    return losses
`
