#!/usr/bin/env bash
# Fuzz every format reader: read arbitrary bytes, and whenever the read succeeds, a no-op write
# must give the same bytes (fuzz/fuzz_targets/<format>.rs). Seeds each target's corpus from
# testdata/formats/<format>/ and runs it for SECONDS (default 60).
#
#   bash scripts/fuzz.sh [SECONDS] [FORMAT...]     # needs `cargo install cargo-fuzz` and nightly
#
# A crash leaves its input under fuzz/artifacts/<format>/; turn each into a regression test
# beside the format (a unit test reading those bytes) before fixing it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_EACH="${1:-60}"
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  mapfile -t TARGETS < <(sed -n 's/^name = "\(.*\)"$/\1/p' "$ROOT/fuzz/Cargo.toml" | grep -v '^kapi-fuzz$')
fi
command -v cargo-fuzz >/dev/null || { echo "fuzz: install cargo-fuzz first: cargo install cargo-fuzz" >&2; exit 1; }
cd "$ROOT/fuzz"
status=0
for target in "${TARGETS[@]}"; do
  corpus="corpus/$target"
  mkdir -p "$corpus"
  seeds="$ROOT/testdata/formats/$target"
  if [ -d "$seeds" ]; then
    find "$seeds" -type f -size -200k -exec cp -n {} "$corpus/" \; 2>/dev/null || true
  fi
  echo "==> fuzzing $target for ${SECONDS_EACH}s" >&2
  if ! cargo +nightly fuzz run "$target" "$corpus" -- -max_total_time="$SECONDS_EACH" -max_len=65536 -rss_limit_mb=2048 2>"/tmp/kapi-fuzz-$target.log"; then
    echo "==> $target FAILED: see /tmp/kapi-fuzz-$target.log and fuzz/artifacts/$target/" >&2
    status=1
  else
    grep -E "^Done|stat::number_of_executed_units" "/tmp/kapi-fuzz-$target.log" | tail -1 >&2 || true
  fi
done
exit $status
