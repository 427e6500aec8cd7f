#!/usr/bin/env bash
# Skill triggering evaluation: see README.md beside this file. Not for CI.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CLAUDE="${CLAUDE:-claude}"
KAPI="${KAPI_BIN:-$ROOT/target/debug/kapi}"
command -v "$CLAUDE" >/dev/null || { echo "skilleval: no assistant CLI ($CLAUDE) on PATH" >&2; exit 1; }
[ -x "$KAPI" ] || { echo "skilleval: build kapi first (cargo build --bin kapi)" >&2; exit 1; }
OUT="$HERE/out"; mkdir -p "$OUT"
pos=0; pos_hit=0; neg=0; neg_hit=0; n=0
while IFS=$'\t' read -r kind prompt; do
  [ -n "$kind" ] || continue
  n=$((n + 1))
  work="$(mktemp -d)"
  cp -r "$ROOT/examples/handbook/." "$work/"
  (cd "$work" && PATH="$(dirname "$KAPI"):$PATH" "$KAPI" init >/dev/null)
  log="$OUT/$n-$kind.jsonl"
  (cd "$work" && PATH="$(dirname "$KAPI"):$PATH" "$CLAUDE" -p "$prompt" --output-format stream-json --verbose >"$log" 2>&1) || true
  if grep -Eq '"(kapi [a-z]|mcp__kapi__)' "$log"; then hit=1; else hit=0; fi
  if [ "$kind" = positive ]; then pos=$((pos + 1)); pos_hit=$((pos_hit + hit)); else neg=$((neg + 1)); neg_hit=$((neg_hit + hit)); fi
  printf '%-8s %s  %s\n' "$kind" "$([ $hit = 1 ] && echo kapi || echo -   )" "$prompt"
  rm -rf "$work"
done < "$HERE/prompts.tsv"
echo "positives triggered: $pos_hit/$pos (want all); negatives triggered: $neg_hit/$neg (want none)"
