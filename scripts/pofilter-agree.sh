#!/usr/bin/env bash
# Runs translate-toolkit's real pofilter over every case file in testdata/pofilter/ and
# checks the verdict each case records on its `# pofilter:` line (the pofilter tests that
# flag it, or `none`). The `# kapi:` lines are checked by cli/tests/cli/pofilter.rs.
#
# A case file names the pofilter tests it holds kapi to on a `# pofilter-tests:` line of its
# header comment; without one, the tests kapi's `placeholders` analyzer is modelled on:
# printf, pythonbraceformat, xmltags and variables (the `functional-*.po` files hold the
# `translation.*` rules to endpunc, startpunc, numbers, urls, emails, accelerators,
# newlines, escapes, brackets, doublespacing, startwhitespace, endwhitespace, long and
# short). A case file picks pofilter's checker and language on a `# pofilter-options:` line
# (`--mozilla` for {{name}} variables, `--gnome` or `--kde` for accelerators,
# `--language=fr`: pofilter does not read the PO header's; anything in parentheses means
# none).
#
# Run by hand, not in CI: installs translate-toolkit with pip when pofilter is missing.
#   scripts/pofilter-agree.sh            every case file
#   scripts/pofilter-agree.sh FILE.po…   some
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if ! command -v pofilter >/dev/null 2>&1; then
    echo "pofilter not found: installing translate-toolkit with pip" >&2
    python3 -m pip install --quiet translate-toolkit
    hash -r
fi
python3 -c 'import translate.storage.po' 2>/dev/null || {
    echo "translate-toolkit is not importable by python3" >&2
    exit 2
}

if [ "$#" -gt 0 ]; then
    files=("$@")
else
    files=(testdata/pofilter/*.po)
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "$(pofilter --version 2>&1 | head -n1)"
status=0
for file in "${files[@]}"; do
    options="$(sed -n 's/^# pofilter-options:[[:space:]]*//p' "$file" | head -n1)"
    case "$options" in
        \(* | "") options="" ;;
    esac
    tests="$(sed -n 's/^# pofilter-tests:[[:space:]]*//p' "$file" | head -n1)"
    tests="${tests:-printf pythonbraceformat xmltags variables}"
    out="$work/$(basename "$file")"
    # shellcheck disable=SC2086 # options and tests are words
    pofilter --progress=none $options $(printf -- '--test=%s ' $tests) "$file" "$out"
    python3 - "$file" "$out" "$tests" <<'PY' || status=1
import re
import sys

from translate.storage import po as pofile

case_path, out_path = sys.argv[1], sys.argv[2]
TESTS = set(sys.argv[3].split())


def key(unit):
    return (unit.getcontext() or "", str(unit.source))


def parse(path):
    with open(path, "rb") as f:
        return [u for u in pofile.pofile(f).units if not u.isheader()]


# What each case says.
expected = {}
for unit in parse(case_path):
    notes = unit.getnotes("translator")
    lines = [l for l in notes.splitlines() if l.startswith("pofilter:")]
    if len(lines) != 1:
        print(f"{case_path}: {unit.source!r}: needs one `# pofilter:` line")
        expected[key(unit)] = None
        continue
    words = lines[0].split(":", 1)[1].split()
    tests = set() if words == ["none"] else set(words)
    unknown = tests - TESTS
    if unknown or not words:
        print(f"{case_path}: {unit.source!r}: unknown pofilter tests {sorted(unknown)}")
    expected[key(unit)] = tests

# What pofilter says: its output holds the failing units, each with a
# `(pofilter) TEST: message` note per failing test.
found = {}
try:
    units = parse(out_path)
except FileNotFoundError:
    units = []
for unit in units:
    tests = set(re.findall(r"\(pofilter\) (\w+):", unit.getnotes()))
    found[key(unit)] = tests & TESTS

bad = 0
for k, want in expected.items():
    got = found.get(k, set())
    if want is None:
        bad += 1
    elif got != want:
        bad += 1
        print(
            f"{case_path}: {k[1]!r}: the case says pofilter flags "
            f"{sorted(want) or 'none'}, pofilter flags {sorted(got) or 'none'}"
        )
print(f"{case_path}: {len(expected) - bad}/{len(expected)} cases agree with pofilter")
sys.exit(1 if bad else 0)
PY
done
exit "$status"
