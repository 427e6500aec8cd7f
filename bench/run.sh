#!/usr/bin/env bash
# kapi's benchmark against its peers (proselint, alex, textlint) and a grep floor.
# Run from anywhere: `make bench` or `bash bench/run.sh`. See bench/README.md.
#
# It builds nothing: kapi is $KAPI_BIN (default target/release/kapi, relative to the repo root).
# Peers are installed into bench/work/ (git-ignored); inputs are prepared there too.
# Prints a markdown table and writes bench/RESULTS.md.
set -euo pipefail

BENCH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$BENCH")"
WORK="${BENCH_WORK:-$BENCH/work}"
RESULTS_MD="${RESULTS_MD:-$BENCH/RESULTS.md}"

KAPI_BIN="${KAPI_BIN:-target/release/kapi}"
# kapi must bind the bench project written into each input (make exports KAPI_NO_PROJECT=1
# for the test suite; a bench run with it would measure a usage error).
unset KAPI_NO_PROJECT KAPI_PROJECT
KAPI_RUNS="${KAPI_RUNS:-10}"          # timed runs of kapi and grep, after one warm-up
PEER_RUNS="${PEER_RUNS:-3}"           # timed runs of each peer (they are slow)
BIG_PEER_RUNS="${BIG_PEER_RUNS:-1}"   # timed runs of each peer on the 10k-file tree
PEER_MAX_SECONDS="${PEER_MAX_SECONDS:-300}"  # skip a peer whose estimated run is longer
TREE_FILES="${TREE_FILES:-10000}"
SMALL_FILES="${SMALL_FILES:-5000}"    # 1 KB pages added to the sample project (handbook5k)
INPUTS="${INPUTS:-single rustbook tree10k handbook5k handbook1}"

# Peer versions, pinned so results compare across machines and dates.
PROSELINT_VERSION=0.16.0
NPM_PACKAGES="alex@11.0.1 textlint@15.8.0 textlint-rule-terminology@5.2.16 sentence-splitter@5.0.1 textlint-util-to-string@3.3.4"

log() { printf '==> %s\n' "$*" >&2; }
die() { printf 'bench: %s\n' "$*" >&2; exit 1; }

START_S=$(date +%s)

# --- tools this script needs ---------------------------------------------------------------
need_apt=()
command -v hyperfine >/dev/null 2>&1 || need_apt+=(hyperfine)
[ -x /usr/bin/time ] || need_apt+=(time)
if [ ${#need_apt[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  log "installing ${need_apt[*]} with apt-get"
  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"; } \
    >"${TMPDIR:-/tmp}/kapi-bench-apt.log" 2>&1 || log "apt-get failed; continuing without ${need_apt[*]}"
fi
HAVE_HYPERFINE=0; command -v hyperfine >/dev/null 2>&1 && HAVE_HYPERFINE=1
[ "${BENCH_NO_HYPERFINE:-0}" = 1 ] && HAVE_HYPERFINE=0   # to test the fallback loop
HAVE_TIME=0; [ -x /usr/bin/time ] && HAVE_TIME=1
command -v python3 >/dev/null 2>&1 || die "python3 is required"
command -v npm >/dev/null 2>&1 || die "npm (and node) is required"

python3 "$BENCH/gen-rules.py" --check || die "bench/rules is out of date with bench/rules/terms.txt"

mkdir -p "$WORK"

# --- peers ---------------------------------------------------------------------------------
if [ ! -x "$WORK/venv/bin/proselint" ] || ! "$WORK/venv/bin/proselint" version 2>/dev/null | grep -q "$PROSELINT_VERSION"; then
  log "installing proselint $PROSELINT_VERSION into $WORK/venv"
  rm -rf "$WORK/venv"
  python3 -m venv "$WORK/venv"
  "$WORK/venv/bin/pip" install -q --disable-pip-version-check "proselint==$PROSELINT_VERSION"
fi
if [ "$(cat "$WORK/node/.installed" 2>/dev/null)" != "$NPM_PACKAGES" ]; then
  log "installing $NPM_PACKAGES into $WORK/node"
  rm -rf "$WORK/node"
  # shellcheck disable=SC2086
  npm install --prefix "$WORK/node" --no-audit --no-fund --loglevel=error $NPM_PACKAGES
  echo "$NPM_PACKAGES" >"$WORK/node/.installed"
fi
# The bench's own textlint rule (30 words a sentence), as a package textlint can resolve.
mkdir -p "$WORK/node/node_modules/textlint-rule-sentence-words"
cp "$BENCH/rules/textlint/package.json" "$BENCH/rules/textlint/sentence-words.js" \
  "$WORK/node/node_modules/textlint-rule-sentence-words/"

PROSELINT="$WORK/venv/bin/proselint"
ALEX="$WORK/node/node_modules/.bin/alex"
TEXTLINT="$WORK/node/node_modules/.bin/textlint"

# --- kapi ----------------------------------------------------------------------------------
case "$KAPI_BIN" in
  /*) ;;
  */*) KAPI_BIN="$ROOT/$KAPI_BIN" ;;
  *) KAPI_BIN="$(command -v "$KAPI_BIN" || echo "$ROOT/$KAPI_BIN")" ;;
esac
KAPI_OK=0
KAPI_LABEL="kapi"
KAPI_VERSION="not built"
if [ -x "$KAPI_BIN" ] && "$KAPI_BIN" check --help >/dev/null 2>&1; then
  KAPI_OK=1
  KAPI_VERSION="$("$KAPI_BIN" --version 2>/dev/null | head -n1 || true)"
  case "$KAPI_VERSION" in
    *kapi*) ;;
    *) KAPI_LABEL="kapi (stand-in: $KAPI_BIN)"; KAPI_VERSION="stand-in $KAPI_BIN" ;;
  esac
  log "kapi: $KAPI_BIN ($KAPI_VERSION)"
else
  log "kapi: no working binary at $KAPI_BIN (\`check --help\` failed); measuring the peers only"
fi

# --- inputs --------------------------------------------------------------------------------
IN="$WORK/inputs"
mkdir -p "$IN"
add_kapi_project() {  # the bench's kapi project at the root of an input tree
  rm -rf "$1/.kapi"
  mkdir -p "$1/.kapi"
  cp "$BENCH/rules/kapi/kapi.yaml" "$1/kapi.yaml"
  cp "$BENCH/rules/kapi/.kapi/voice.yaml" "$BENCH/rules/kapi/.kapi/terms.yaml" \
    "$BENCH/rules/kapi/.kapi/.gitignore" "$1/.kapi/"
}
for input in $INPUTS; do
  case "$input" in
    single)
      [ -f "$IN/single/doc.md" ] || python3 "$BENCH/gen-tree.py" single "$IN/single" >&2 ;;
    rustbook)
      [ -d "$BENCH/data/rust-book" ] || die "bench/data/rust-book is missing"
      rm -rf "$IN/rustbook"
      cp -r "$BENCH/data/rust-book" "$IN/rustbook" ;;
    tree10k)
      if [ "$(cat "$IN/tree10k/.files" 2>/dev/null)" != "$TREE_FILES" ]; then
        rm -rf "$IN/tree10k"
        python3 "$BENCH/gen-tree.py" tree "$IN/tree10k" "$TREE_FILES" >&2
        echo "$TREE_FILES" >"$IN/tree10k/.files"
      fi ;;
    handbook5k)  # the sample project (its own recipe, voice and terms) with 5,000 1 KB pages
      if [ "$(cat "$IN/handbook5k/.files" 2>/dev/null)" != "$SMALL_FILES" ]; then
        rm -rf "$IN/handbook5k"
        cp -r "$ROOT/examples/handbook" "$IN/handbook5k"
        python3 "$BENCH/gen-tree.py" small "$IN/handbook5k/docs/gen" "$SMALL_FILES" >&2
        echo "$SMALL_FILES" >"$IN/handbook5k/.files"
      fi ;;
    handbook1)  # the sample project with one 10 KB page (the single input), checked alone
      [ -f "$IN/single/doc.md" ] || python3 "$BENCH/gen-tree.py" single "$IN/single" >&2
      rm -rf "$IN/handbook1"
      cp -r "$ROOT/examples/handbook" "$IN/handbook1"
      cp "$IN/single/doc.md" "$IN/handbook1/docs/chapter.md" ;;
    *) die "unknown input '$input' (single, rustbook, tree10k, handbook5k, handbook1)" ;;
  esac
  case "$input" in handbook*) ;; *) add_kapi_project "$IN/$input" ;; esac
done

# --- measuring -----------------------------------------------------------------------------
RES="$WORK/results"
rm -rf "$RES"
mkdir -p "$RES"

# measure INPUT TOOL RUNS WARMUP WRAP_RSS CMD...
# Runs CMD in the input's folder, stdout and stderr to RES/INPUT/TOOL.out; a non-zero exit is
# recorded, not fatal. Writes TOOL.times ("seconds exit-code" a line) and TOOL.rss (KB a line).
# WRAP_RSS=1 wraps the timed runs in /usr/bin/time (peers: seconds-long runs, so the wrapper
# costs nothing and saves an extra run); otherwise the RSS comes from one extra run.
measure() {
  local input=$1 tool=$2 runs=$3 warmup=$4 wrap=$5; shift 5
  local dir="$IN/$input" d="$RES/$input"
  local out="$d/$tool.out" rss="$d/$tool.rss" times="$d/$tool.times"
  mkdir -p "$d"
  : >"$rss"; : >"$times"
  local cmd="" q
  for q in "$@"; do cmd+="$(printf '%q ' "$q")"; done
  local timed="$cmd"
  if [ "$wrap" = 1 ] && [ "$HAVE_TIME" = 1 ]; then timed="/usr/bin/time -a -o $(printf '%q' "$rss") -f %M $cmd"; fi
  local prepare
  prepare="rm -rf $(printf '%q' "$dir/.kapi/work")"   # no kapi state carried between runs
  # KEEP_WORK=1: the check cache kept between runs (its warm-up run fills it).
  [ "${KEEP_WORK:-0}" = 1 ] && prepare="true"
  log "$input: $tool, $runs run(s)"
  if [ "$HAVE_HYPERFINE" = 1 ]; then
    local json="$d/$tool.json"
    local hf=(hyperfine --ignore-failure --style basic --runs "$runs" --warmup "$warmup"
      --prepare "$prepare" --export-json "$json" -n "$tool")
    if [ "$wrap" = 1 ]; then
      # Seconds-long peers: through sh, so stdout and stderr both go to the file.
      (cd "$dir" && "${hf[@]}" "$timed >$(printf '%q' "$out") 2>&1") >&2
    else
      # Millisecond runs: no shell in between (-N), stdout to the file.
      (cd "$dir" && "${hf[@]}" -N --output "$out" "$timed") >&2
    fi
    python3 -c 'import json,sys
r=json.load(open(sys.argv[1]))["results"][0]
for t,c in zip(r["times"],r["exit_codes"]): print(f"{t:.6f} {c}")' "$json" >"$times"
  else
    local i t0 t1 rc
    for ((i = 0; i < warmup + runs; i++)); do
      [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$dir/.kapi/work"
      t0=$(date +%s%N)
      rc=0; (cd "$dir" && eval "$timed" >"$out" 2>&1) || rc=$?
      t1=$(date +%s%N)
      [ "$i" -ge "$warmup" ] && echo "$(( (t1 - t0) / 1000 )) $rc" | awk '{printf "%.6f %s\n", $1/1e6, $2}' >>"$times"
    done
  fi
  if [ "$HAVE_TIME" = 1 ] && { [ "$wrap" != 1 ] || [ ! -s "$rss" ]; }; then
    : >"$rss"
    [ "${KEEP_WORK:-0}" = 1 ] || rm -rf "$dir/.kapi/work"
    (cd "$dir" && /usr/bin/time -o "$rss" -f %M "$@" >"$out" 2>&1) || true
  fi
  # keep the numbers; /usr/bin/time also writes "Command exited with non-zero status N"
  grep -E '^[0-9]+$' "$rss" >"$rss.tmp" || true; mv "$rss.tmp" "$rss"
}

# estimate TOOL INPUT: seconds for one run of TOOL on INPUT, scaled by bytes from the largest
# input TOOL already ran on (empty when there is none). Used for the 10k tree only: scaling up
# from the single file would multiply the peers' start-up time too.
input_bytes() { find "$IN/$1" -name '*.md' -not -path '*/.*' -printf '%s\n' | awk '{s+=$1} END {print s+0}'; }
estimate() {
  local tool=$1 input=$2 prev best="" best_bytes=0 b
  for prev in $INPUTS; do
    [ "$prev" = "$input" ] && break
    [ -s "$RES/$prev/$tool.times" ] || continue
    b=$(input_bytes "$prev")
    if [ "$b" -gt "$best_bytes" ]; then best=$prev; best_bytes=$b; fi
  done
  [ -n "$best" ] || return 0
  sort -n "$RES/$best/$tool.times" | awk -v nb="$(input_bytes "$input")" -v ob="$best_bytes" \
    '{t[NR]=$1} END {printf "%.0f\n", t[int((NR+1)/2)] * nb / ob}'
}

for input in $INPUTS; do
  mkdir -p "$RES/$input"
  printf '%s %s\n' "$(find "$IN/$input" -name '*.md' -not -path '*/.*' | wc -l)" "$(input_bytes "$input")" \
    >"$RES/$input/input.txt"
  peer_runs=$PEER_RUNS; [ "$input" = tree10k ] && peer_runs=$BIG_PEER_RUNS
  # What each input checks: the tree, or (handbook1) one page of a project.
  kapi_args=(check); grep_args=(-rFwic --include='*.md' -f "$BENCH/rules/words.txt" .)
  if [ "$input" = handbook1 ]; then
    kapi_args=(check docs/chapter.md); grep_args=(-Fwic -f "$BENCH/rules/words.txt" docs/chapter.md)
  fi
  if [ "$KAPI_OK" = 1 ]; then
    measure "$input" kapi "$KAPI_RUNS" 1 0 "$KAPI_BIN" "${kapi_args[@]}"
    # 0 (gate held) or 3 (gate not met) is a real check; anything else measured an error.
    if awk '$2 != 0 && $2 != 3 { bad = 1 } END { exit !bad }' "$RES/$input/kapi.times"; then
      die "kapi did not check $input: $(head -n 3 "$RES/$input/kapi.out")"
    fi
    # The same check again over an unchanged tree: the check cache answers (a stat a file).
    rm -rf "$IN/$input/.kapi/work"
    KEEP_WORK=1 measure "$input" kapi-cached "$KAPI_RUNS" 1 0 "$KAPI_BIN" "${kapi_args[@]}"
  fi
  measure "$input" grep "$KAPI_RUNS" 1 0 grep "${grep_args[@]}"
  # The sample-project inputs are kapi against the floor; the peers are measured on the others.
  case "$input" in handbook*) continue ;; esac
  for tool in proselint alex textlint; do
    est=""
    [ "$input" = tree10k ] && est=$(estimate "$tool" "$input")
    if [ -n "$est" ] && [ "$est" -gt "$PEER_MAX_SECONDS" ]; then
      echo "skipped: estimated ${est} s a run (over ${PEER_MAX_SECONDS} s), scaled from a smaller input" \
        >"$RES/$input/$tool.skip"
      log "$input: $tool skipped (estimated ${est} s a run)"
      continue
    fi
    case "$tool" in
      proselint) measure "$input" proselint "$peer_runs" 0 1 "$PROSELINT" check . ;;
      alex) measure "$input" alex "$peer_runs" 0 1 "$ALEX" . ;;
      textlint) measure "$input" textlint "$peer_runs" 0 1 "$TEXTLINT" --config "$BENCH/rules/textlintrc.json" -f unix . ;;
    esac
  done
done

# --- report --------------------------------------------------------------------------------
{
  echo "KAPI_OK=$KAPI_OK"
  echo "KAPI_LABEL=$KAPI_LABEL"
  echo "KAPI_VERSION=$KAPI_VERSION"
  echo "KAPI_COMMIT=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || true)"
  echo "PROSELINT_VERSION=$("$PROSELINT" version 2>/dev/null | head -n1 || true)"
  echo "ALEX_VERSION=$("$ALEX" --version 2>/dev/null | head -n1)"
  echo "TEXTLINT_VERSION=$("$TEXTLINT" --version 2>/dev/null | head -n1)"
  echo "TERMINOLOGY_VERSION=$(node -p "require('$WORK/node/node_modules/textlint-rule-terminology/package.json').version")"
  echo "NODE_VERSION=$(node --version)"
  echo "PYTHON_VERSION=$("$WORK/venv/bin/python" --version 2>&1)"
  echo "GREP_VERSION=$(grep --version | head -n1)"
  echo "HYPERFINE_VERSION=$( [ "$HAVE_HYPERFINE" = 1 ] && hyperfine --version || echo "no hyperfine: a bash loop with date +%s%N")"
  echo "NPROC=$(nproc)"
  echo "CPU=$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//' || true)"
  echo "MEM=$(free -h | awk '/^Mem:/ {print $2 " total, " $7 " available"}')"
  echo "KERNEL=$(uname -sr)"
  echo "DATE=$(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "KAPI_RUNS=$KAPI_RUNS"
  echo "PEER_RUNS=$PEER_RUNS"
  echo "BIG_PEER_RUNS=$BIG_PEER_RUNS"
  echo "PEER_MAX_SECONDS=$PEER_MAX_SECONDS"
  echo "INPUTS=$INPUTS"
  echo "ELAPSED=$(( $(date +%s) - START_S ))"
} >"$RES/meta.env"

python3 "$BENCH/report.py" "$RES" >"$RES/RESULTS.md"
python3 "$BENCH/report.py" --history-row "$RES" >"$RES/history-row.md"
# Keep the sections bench/formats.sh and bench/apply.sh own, in their order, and the history
# (this run's row appended).
python3 - "$RES/RESULTS.md" "$RESULTS_MD" "$RES/history-row.md" "$BENCH" <<'PY'
import re, sys
sys.path.insert(0, sys.argv[4])
from report import HISTORY_HEAD
new, path, row = open(sys.argv[1]).read(), sys.argv[2], open(sys.argv[3]).read().strip()
try:
    old = open(path).read()
except FileNotFoundError:
    old = ""
kept = [m.group(0) for m in re.finditer(r"<!-- (formats|apply|mcp|hooks|code|precision):start -->.*?<!-- \1:end -->", old, re.S)]
history = re.search(r"<!-- history:start -->(.*?)<!-- history:end -->", old, re.S)
rows = [l for l in (history.group(1) if history else "").splitlines()
        if l.startswith("| 20")]
section = "<!-- history:start -->\n" + "\n".join(HISTORY_HEAD + rows + [row]) + "\n<!-- history:end -->"
open(path, "w").write(new.rstrip("\n") + "".join("\n\n" + k for k in kept) + "\n\n" + section + "\n")
PY
cat "$RES/RESULTS.md"
log "wrote $RESULTS_MD in $(( $(date +%s) - START_S )) s"
