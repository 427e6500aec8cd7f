#!/usr/bin/env bash
# Holds kapi's plural verdicts to gettext's `msgfmt -c` on real PO catalogs and their broken
# variants: msgfmt's verdict (fatal error or not) must be kapi's (a `plurals.*` finding or
# not). Needs gettext's msgfmt and a built kapi (`cargo build --bin kapi`).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
kapi="${KAPI_BIN:-$root/target/debug/kapi}"
data="$root/testdata/plurals"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

ru="$data/django-conf-ru-django.po"
cp "$ru" "$work/ru.po"
cp "$data/django-conf-fr-django.po" "$work/fr.po"
# The first plural message's msgstr[2] and msgstr[3] dropped: short of nplurals=4.
awk 'n < 2 && /^msgstr\[[23]\] / {n++; next} {print}' "$ru" > "$work/ru-missing.po"
# A fifth form on the first plural message: past nplurals.
awk '!done && /^msgstr\[3\] / {print; print "msgstr[4] \"x\""; done=1; next} {print}' "$ru" > "$work/ru-extra.po"
# nplurals=2 with Russian's formula: the header disagrees with itself.
sed '0,/nplurals=4;/s//nplurals=2;/' "$ru" > "$work/ru-header.po"
# The same header in a file with no plural message (msgfmt -c judges the header alone).
awk 'BEGIN{RS=""; ORS="\n\n"} NR==1 {sub(/nplurals=4;/, "nplurals=2;"); print; print "msgid \"Yes\"\nmsgstr \"Da\""; exit}' "$ru" > "$work/ru-header-singular.po"
# A formula that divides by zero.
sed '0,/plural=(n%10==1/s//plural=(n\/0==1/' "$ru" > "$work/ru-div.po"
# The first plural message short of a form and fuzzy: msgfmt skips fuzzy messages.
python3 - "$ru" "$work/ru-fuzzy.po" <<'PY'
import sys
text = open(sys.argv[1], encoding="utf-8").read()
at = text.index("msgid_plural")
start = text.rindex("\nmsgid ", 0, at) + 1
text = text[:start] + "#, fuzzy\n" + text[start:]
end = text.index("\n\n", start)
message = "\n".join(
    line for line in text[start:end].split("\n")
    if not line.startswith(("msgstr[2] ", "msgstr[3] "))
)
text = text[:start] + message + text[end:]
open(sys.argv[2], "w", encoding="utf-8").write(text)
PY
cp "$data/django-conf-ar-django.po" "$work/ar.po"

agree=0
disagree=0
cd "$work"
for po in *.po; do
    if msgfmt -c -o /dev/null "$po" 2>/dev/null; then msgfmt_verdict=pass; else msgfmt_verdict=fail; fi
    # 0: no finding at the gate, 3: the gate is not met; anything else is an error.
    set +e
    out="$("$kapi" check "$po" --json)"
    code=$?
    set -e
    if [ "$code" != 0 ] && [ "$code" != 3 ]; then
        echo "$po: kapi check exited $code" >&2
        exit 2
    fi
    if printf '%s' "$out" | grep -q '"rule": *"plurals\.'; then kapi_verdict=fail; else kapi_verdict=pass; fi
    if [ "$msgfmt_verdict" = "$kapi_verdict" ]; then
        agree=$((agree + 1))
        echo "agree    $po: $msgfmt_verdict"
    else
        disagree=$((disagree + 1))
        echo "DISAGREE $po: msgfmt -c $msgfmt_verdict, kapi $kapi_verdict"
    fi
done
echo "plurals-agree: $agree agree, $disagree disagree"
[ "$disagree" = 0 ]
