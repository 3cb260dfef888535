#!/usr/bin/env bash
# A/B of the snaptrain bench between two git revisions, measured in ONE run so both see the same
# machine load: `snaptrain bench --suite gbdt --quick` and `--suite recsys --quick` for each tree,
# interleaved (rep 1: A B, rep 2: B A, ...), then the key numbers side by side.
#
#   bench/ab.sh REV_A REV_B [REPS]        (REPS default 3; REPO default: the checkout holding this script)
#
# Revisions are commits (a worktree holds no uncommitted change). About 8 min per rep on 2 shared
# cores (gbdt --quick ~40 s, recsys --quick ~3 min on the 200k sample clicks, per tree).
#
# Each revision is built in its own worktree (/tmp/bench-ab/A, /tmp/bench-ab/B: `git worktree add
# --detach`, node_modules' packages symlinked from REPO when package-lock.json is the same, else
# `npm ci --offline`; `node tools/build/build.mjs`). Both read the same sample tables (generated
# once by tree A into /tmp/bench-ab/tables, copied into each tree's public/tables), and the gbdt
# suite's synthetic tables are made in each tree before the first timed run. Results:
# /tmp/bench-ab/out/<suite>-<A|B>-<rep>.json; the summary is printed and saved as summary.txt.
# Read a B/A ratio against the spread of the same ratio over the reps (and against a run of one
# revision against itself): on a shared machine anything inside that band is noise.
# SUMMARY_ONLY=1 bench/ab.sh A B [REPS] prints the summary of the last run again.
set -euo pipefail

A_REV=${1:?usage: bench/ab.sh REV_A REV_B [REPS]}
B_REV=${2:?usage: bench/ab.sh REV_A REV_B [REPS]}
REPS=${3:-3}
REPO=${REPO:-$(cd "$(dirname "$0")/.." && pwd)}
WORK=${WORK:-/tmp/bench-ab}
OUT="$WORK/out"
TIMEOUT=${TIMEOUT:-1200}

log() { printf '[bench-ab %s] %s\n' "$(date +%T)" "$*" >&2; }

mkdir -p "$WORK"
if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
  rm -rf "$OUT"
fi
mkdir -p "$OUT"

setup_tree() { # name rev
  local name=$1 rev=$2 dir="$WORK/$1"
  if [ -e "$dir" ]; then
    rm -rf "$dir/node_modules" # links into REPO's node_modules (rm -rf never follows them)
    git -C "$REPO" worktree remove --force "$dir" 2>/dev/null || rm -rf "$dir"
    git -C "$REPO" worktree prune
  fi
  log "$name: worktree of $rev at $dir"
  git -C "$REPO" worktree add --detach "$dir" "$rev" >"$WORK/worktree-$name.log" 2>&1 || {
    cat "$WORK/worktree-$name.log" >&2
    exit 1
  }
  if cmp -s "$REPO/package-lock.json" "$dir/package-lock.json" && [ -d "$REPO/node_modules" ]; then
    # Each package linked, not the folder: vite's dependency cache (node_modules/.vite) stays per tree.
    mkdir -p "$dir/node_modules"
    for e in "$REPO"/node_modules/* "$REPO"/node_modules/.bin; do ln -s "$e" "$dir/node_modules/"; done
  else
    log "$name: package-lock.json differs from $REPO's: npm ci --offline"
    (cd "$dir" && npm ci --offline --no-audit --no-fund >"$WORK/npm-ci-$name.log" 2>&1)
  fi
  log "$name: build"
  (cd "$dir" && node tools/build/build.mjs >"$WORK/build-$name.log" 2>&1) || {
    tail -30 "$WORK/build-$name.log" >&2
    exit 1
  }
}

if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
setup_tree A "$A_REV"
setup_tree B "$B_REV"
fi
A_SHA=$(git -C "$WORK/A" rev-parse --short HEAD)
B_SHA=$(git -C "$WORK/B" rev-parse --short HEAD)

if [ "${SUMMARY_ONLY:-0}" != 1 ]; then
# One set of sample tables (clicks, marketing; seed 42) for both trees.
if [ ! -d "$WORK/tables/clicks/_delta_log" ]; then
  log "sample tables -> $WORK/tables (once)"
  (cd "$WORK/A" && SNAPTRAIN_BUILD_CHECK=0 node bin/snaptrain.js data --out "$WORK/tables" >/dev/null)
fi
for t in A B; do
  rm -rf "$WORK/$t/public/tables"
  mkdir -p "$WORK/$t/public"
  cp -r "$WORK/tables" "$WORK/$t/public/tables"
done

bench() { # tree suite rep
  local t=$1 suite=$2 rep=$3
  local out="$OUT/$suite-$t-$rep.json"
  log "rep $rep: $t ($( [ "$t" = A ] && echo "$A_SHA" || echo "$B_SHA" )) --suite $suite --quick (load $(cut -d' ' -f1 /proc/loadavg))"
  cut -d' ' -f1 /proc/loadavg >"$OUT/$suite-$t-$rep.load"
  (cd "$WORK/$t" && SNAPTRAIN_BUILD_CHECK=0 node bin/snaptrain.js bench --suite "$suite" --quick --json \
    --out "$out" --timeout "$TIMEOUT" >"$OUT/$suite-$t-$rep.stdout" 2>"$OUT/$suite-$t-$rep.stderr") || {
    # Logged and left out of the summary (shown as —); the other runs go on.
    log "FAILED: $t $suite rep $rep (see $OUT/$suite-$t-$rep.stderr)"
    tail -20 "$OUT/$suite-$t-$rep.stderr" >&2
    rm -f "$out"
  }
}

# Untimed warm-up of each tree (vite transforms, the gbdt suite's tables, the XGBoost peer's files).
for t in A B; do bench "$t" gbdt 0; done

for rep in $(seq 1 "$REPS"); do
  if [ $((rep % 2)) -eq 1 ]; then order="A B"; else order="B A"; fi
  for suite in gbdt recsys; do
    for t in $order; do bench "$t" "$suite" "$rep"; done
  done
done
fi # SUMMARY_ONLY

node - "$OUT" "$REPS" "$A_REV ($A_SHA)" "$B_REV ($B_SHA)" <<'EOF' | tee "$OUT/summary.txt"
const fs = require('node:fs')
const [out, repsText, aName, bName] = process.argv.slice(2)
const reps = Number(repsText)
// [suite, label, workload prefix, field]: field 'value' or 'ratio' (to the row's peer).
const KEYS = [
  ['gbdt', 'gbdt s/round (GPU backend)', 'gbdt round ', 'value'],
  ['gbdt', 'gbdt ÷ XGBoost hist, same run (ratio, >1 ours faster)', 'gbdt round ', 'ratio'],
  ['gbdt', 'XGBoost hist s/round (peer)', 'xgboost ', 'value', r => r.metric === 'time per round'],
  ['gbdt', 'stage histogram ms/round', '  stage histogram', 'value'],
  ['gbdt', 'stage evaluate ms/round', '  stage evaluate', 'value'],
  ['gbdt', 'stage partition ms/round', '  stage partition', 'value'],
  ['gbdt', 'histogram in training ÷ atomic ceiling', 'histogram in training', 'ratio'],
  ['gbdt', 'columns → first round s', 'columns → first round', 'value'],
  ['gbdt', 'open → first round s', 'open → first round', 'value'],
  ['recsys', 'ours per-step samples/s', 'ours GpuModel', 'value'],
  ['recsys', 'TF.js per-step samples/s (peer)', 'TF.js webgpu', 'value'],
  ['recsys', 'ours ÷ TF.js per-step (ratio)', 'ours GpuModel', 'ratio'],
  ['recsys', 'ours pipelined samples/s', 'ours pipelined (', 'value'],
  ['recsys', 'ours pipelined ÷ TF.js (ratio)', 'ours pipelined (', 'ratio'],
  ['recsys', 'train end to end samples/s', 'snaptrain train end to end', 'value'],
  ['recsys', 'ours validation AUC', 'ours validation AUC', 'value'],
  ['gbdt', 'gbdt validation AUC (in the round row name)', 'gbdt round ', 'auc'],
]
const median = xs => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b)
  if (!s.length) return NaN
  const m = s.length >> 1
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
const fmt = x => (!Number.isFinite(x) ? '—' : Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 1 ? x.toFixed(3) : x.toPrecision(3))
const rowsOf = (suite, tree, rep) => {
  const f = `${out}/${suite}-${tree}-${rep}.json`
  return fs.existsSync(f) ? JSON.parse(fs.readFileSync(f, 'utf8')).rows : []
}
const pick = (rows, prefix, field, filter) => {
  const r = rows.find(x => x.workload.startsWith(prefix) && (!filter || filter(x)))
  if (!r) return NaN
  if (field === 'auc') return Number(/valid auc ([0-9.]+)/.exec(r.workload)?.[1] ?? NaN)
  return r[field] ?? NaN
}
console.log(`A = ${aName}   B = ${bName}   ${reps} interleaved reps each (rep 0, a warm-up, not counted)`)
const head = ['number', 'A runs', 'B runs', 'A median', 'B median', 'B/A (median)', 'B/A per rep (min..max)']
const table = [head]
for (const [suite, label, prefix, field, filter] of KEYS) {
  const a = [], b = [], per = []
  for (let rep = 1; rep <= reps; rep++) {
    const va = pick(rowsOf(suite, 'A', rep), prefix, field, filter)
    const vb = pick(rowsOf(suite, 'B', rep), prefix, field, filter)
    a.push(va)
    b.push(vb)
    if (Number.isFinite(va) && Number.isFinite(vb) && va !== 0) per.push(vb / va)
  }
  const ma = median(a), mb = median(b)
  table.push([
    label,
    a.map(fmt).join(' '),
    b.map(fmt).join(' '),
    fmt(ma),
    fmt(mb),
    fmt(mb / ma),
    per.length ? `${fmt(Math.min(...per))}..${fmt(Math.max(...per))}` : '—',
  ])
}
const loads = t => {
  const xs = []
  for (let rep = 1; rep <= reps; rep++)
    for (const suite of ['gbdt', 'recsys']) {
      const f = `${out}/${suite}-${t}-${rep}.load`
      if (fs.existsSync(f)) xs.push(Number(fs.readFileSync(f, 'utf8')))
    }
  return xs
}
table.push(['load average at each run start', loads('A').map(fmt).join(' '), loads('B').map(fmt).join(' '), '', '', '', ''])
const widths = head.map((_, i) => Math.max(...table.map(r => String(r[i]).length)))
for (const r of table) console.log(r.map((c, i) => String(c).padEnd(widths[i])).join('  '))
console.log('s/round, ms/round, s: lower is better; samples/s and ratios: higher is better.')
EOF
