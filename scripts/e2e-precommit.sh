#!/usr/bin/env bash
# The real pre-commit (PyPI) runs kapi's `.pre-commit-hooks.yaml` (`make e2e-precommit`): it
# builds kapi from this checkout as `language: rust` does (`cargo install --path .`), in a
# throwaway git repository whose kapi project has a forbidden term, and must stop a commit
# that adds the term and pass one that does not. Bounded in time; everything in a temp dir.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
die() { echo "e2e-precommit: $*" >&2; exit 1; }
precommit=(pre-commit)
if ! command -v pre-commit >/dev/null; then
  python3 -m pip install --quiet 'pre-commit==4.*' || die "pre-commit is missing and pip cannot install it"
  # pip's scripts folder may not be on PATH: run the module it installed.
  command -v pre-commit >/dev/null || precommit=(python3 -m pre_commit)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# pre-commit's own home (its clone of this checkout and the built kapi), and the build's
# artifacts, kept under target/ so a second run is quick. A lean release profile: this
# checks the hook's wiring, not kapi's speed.
export PRE_COMMIT_HOME="$repo/target/pre-commit/home"
export CARGO_TARGET_DIR="$repo/target/pre-commit/build"
export CARGO_PROFILE_RELEASE_LTO=false CARGO_PROFILE_RELEASE_CODEGEN_UNITS=64 \
  CARGO_PROFILE_RELEASE_OPT_LEVEL=1
unset KAPI_NO_PROJECT KAPI_PROJECT KAPI_ACTOR KAPI_SESSION
export GIT_AUTHOR_NAME=e2e GIT_AUTHOR_EMAIL=e2e@example.invalid \
  GIT_COMMITTER_NAME=e2e GIT_COMMITTER_EMAIL=e2e@example.invalid

cd "$work"
git init -q project && cd project
cat > kapi.yaml <<'YAML'
version: v1
name: precommit
collections:
  - path: "docs/**/*.md"
YAML
mkdir -p .kapi docs
cat > .kapi/terms.yaml <<'YAML'
version: v1
concepts:
  - id: sign-in
    terms:
      - text: sign in
        lang: en
        status: preferred
      - text: log in
        lang: en
        status: forbidden
YAML
printf '# Start\n\nSign in to begin.\n' > docs/start.md
git add -A && git commit -q -m "the project"

# The hook repository: this checkout as committed plus its uncommitted changes (what
# `pre-commit try-repo` does), committed in a clone so one environment serves every run.
git clone -q "$repo" "$work/hooks"
git -C "$repo" diff HEAD --binary | git -C "$work/hooks" apply --allow-empty
git -C "$work/hooks" add -A && git -C "$work/hooks" commit -q --allow-empty -m "as checked out"
rev="$(git -C "$work/hooks" rev-parse HEAD)"
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $work/hooks
    rev: $rev
    hooks:
      - id: kapi-check
      - id: kapi-check-all
        stages: [manual]
YAML
git add .pre-commit-config.yaml && git commit -q -m "pre-commit"
timeout 1500 "${precommit[@]}" install-hooks >/dev/null || die "pre-commit could not build kapi (cargo install --path .)"
"${precommit[@]}" install >/dev/null
commit() { timeout 300 git commit -q -m "$1" 2>&1; }

printf '# Start\n\nSign in to begin.\n\nThen log in again.\n' > docs/start.md
git add docs/start.md
if out="$(commit "a forbidden term")"; then
  echo "$out"; die "the commit with a forbidden term went through"
fi
echo "$out" | tail -8
echo "$out" | grep -q "docs/start.md:5" || die "kapi-check's output does not name docs/start.md:5"
echo "$out" | grep -q "terms.forbidden" || die "kapi-check's output does not name the rule"
[ "$(git log -1 --format=%s)" = "pre-commit" ] || die "a commit landed"
set +e; out="$(timeout 300 "${precommit[@]}" run kapi-check-all --hook-stage manual 2>&1)"; status=$?; set -e
[ "$status" -ne 0 ] && echo "$out" | grep -q "terms.forbidden" \
  || { echo "$out"; die "kapi-check-all passed a forbidden term"; }

printf '# Start\n\nSign in to begin.\n\nThen sign in again.\n' > docs/start.md
git add docs/start.md
out="$(commit "clean")" || { echo "$out"; die "kapi-check stopped a clean commit"; }
[ "$(git log -1 --format=%s)" = "clean" ] || die "the clean commit did not land"

# A finding already committed does not stop a commit that leaves it alone.
printf '# Old\n\nPlease log in.\n' > docs/old.md
git add docs/old.md && git commit -q --no-verify -m "an old finding"
printf '# Start\n\nSign in to begin now.\n' > docs/start.md
git add docs/start.md
out="$(commit "around the old finding")" \
  || { echo "$out"; die "kapi-check stopped a commit over a finding it did not touch"; }
set +e; out="$(timeout 300 "${precommit[@]}" run kapi-check-all --hook-stage manual --all-files 2>&1)"; status=$?; set -e
[ "$status" -ne 0 ] || die "kapi-check-all passed the old finding"
echo "e2e-precommit: kapi-check stops a commit adding a forbidden term and lets a clean one through; kapi-check-all holds the whole project"
