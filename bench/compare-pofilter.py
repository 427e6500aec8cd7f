#!/usr/bin/env python3
"""Compare kapi's `placeholders` findings with pofilter's on the same PO files.

Usage: compare-pofilter.py INPUT_DIR POFILTER_OUT_DIR KAPI_TSV

- INPUT_DIR: the PO files both tools read.
- POFILTER_OUT_DIR: `pofilter -i INPUT_DIR -o OUT`: the same tree, each file holding the units
  that failed, each with `# (pofilter) TEST: message` comments.
- KAPI_TSV: `path<TAB>key<TAB>lang<TAB>rule` lines from `roundtrip po --placeholders`.

Messages are matched by (file, key), the key written as kapi's PO reader writes it: the msgid
as its escapes are written in the file, with `msgctxt|` in front when there is a context.
Prints markdown: agreement counts, then, for each way the two disagree, how many and examples
with a reason.
"""
import collections
import os
import re
import sys

STRING = re.compile(r'^\s*"(.*)"\s*$')


def entries(path):
    """Yield (key, source, target, comments) for each message of a PO file (obsolete skipped)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return
    entry = {"comments": []}
    field = None

    def flush():
        if "msgid" in entry and (entry["msgid"] or "msgctxt" in entry):
            ctx = entry.get("msgctxt")
            mid = entry["msgid"].replace("|", "\\|")
            key = mid if ctx is None else ctx.replace("|", "\\|") + "|" + mid
            target = " / ".join(v for k, v in sorted(entry.items()) if k.startswith("msgstr"))
            source = entry["msgid"] + (" / " + entry["msgid_plural"] if "msgid_plural" in entry else "")
            yield key, source, target, entry["comments"]

    for line in lines + [""]:
        if line.startswith("#~"):
            continue
        if not line.strip():
            yield from flush()
            entry, field = {"comments": []}, None
            continue
        if line.startswith("#"):
            if "msgid" in entry:
                yield from flush()
                entry, field = {"comments": []}, None
            entry["comments"].append(line)
            continue
        m = re.match(r"^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+\"(.*)\"\s*$", line)
        if m:
            if m.group(1) in ("msgctxt",) or (m.group(1) == "msgid" and "msgid" in entry):
                if "msgid" in entry:
                    yield from flush()
                    entry, field = {"comments": entry["comments"] if "msgid" not in entry else []}, None
            field = m.group(1)
            entry[field] = m.group(2)
            continue
        m = STRING.match(line)
        if m and field:
            entry[field] += m.group(1)


def main():
    src_dir, out_dir, tsv = sys.argv[1:4]
    kapi = collections.defaultdict(set)
    with open(tsv, encoding="utf-8") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) != 4:
                continue
            path, key, _lang, rule = parts
            rel = os.path.relpath(path, src_dir)
            kapi[(rel, re.sub(r"#\d+$", "", key))].add(rule)
    pof = collections.defaultdict(set)
    for root, _, files in os.walk(out_dir):
        for name in files:
            if not name.endswith(".po"):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, out_dir)
            for key, _s, _t, comments in entries(path):
                for c in comments:
                    m = re.match(r"#\s*\(pofilter\)\s*([\w-]+):", c)
                    if m:
                        pof[(rel, key)].add(m.group(1))
    texts = {}
    for key in set(kapi) | set(pof):
        rel = key[0]
        if rel not in texts:
            texts[rel] = {k: (s, t) for k, s, t, _ in entries(os.path.join(src_dir, rel))}
    both = set(kapi) & set(pof)
    only_kapi = set(kapi) - set(pof)
    only_pof = set(pof) - set(kapi)
    print(f"Messages flagged: kapi {len(kapi)}, pofilter {len(pof)}, both {len(both)}, "
          f"kapi only {len(only_kapi)}, pofilter only {len(only_pof)}.")
    print()

    def show(title, keys, labels):
        if not keys:
            return
        groups = collections.defaultdict(list)
        for k in sorted(keys):
            groups[" + ".join(sorted(labels[k]))].append(k)
        print(f"**{title}** ({len(keys)}):")
        print()
        for label, items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
            print(f"- `{label}`: {len(items)}, e.g.")
            for rel, key in items[:3]:
                s, t = texts.get(rel, {}).get(key, ("?", "?"))
                print(f"  - `{rel}`: `{s[:90]}` → `{t[:90]}`")
        print()

    def reason(key):
        """Why kapi does not flag what pofilter flags, judged from the texts."""
        rel, k = key
        source, target = texts.get(rel, {}).get(k, ("", ""))
        names = lambda t: re.findall(r"%\([A-Za-z_][\w.]*\)|%\d*\$?[sdif]|\{\w*\}", t)
        if " / " in source and set(names(source)) == set(names(target.replace(" / ", " "))):
            return ("plural form omits the number",
                    "a plural form that stands for one value may omit the number "
                    "(`msgfmt -c` accepts it; kapi requires each variable in some form)")
        if set(names(source)) == set(names(target)):
            return ("a named variable repeated",
                    "Python's named placeholders may appear any number of times; kapi compares "
                    "names as a set, pofilter counts them")
        return ("other", "see the example")

    show("Only kapi flags", only_kapi, kapi)
    show("Only pofilter flags", only_pof, pof)
    if only_pof:
        groups = collections.Counter(reason(k) for k in only_pof)
        print("Why kapi does not flag them:")
        print()
        for (label, why), n in groups.most_common():
            print(f"- {label} ({n}): {why}.")
        print()


if __name__ == "__main__":
    main()
