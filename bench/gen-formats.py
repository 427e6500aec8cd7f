#!/usr/bin/env python3
"""Inputs for bench/formats.sh, deterministic (fixed seed), written under OUT:

- catalog-50mb.json: a nested i18n catalog of ~50 MB (placeholders, i18next plurals, ICU);
- catalog-5mb.json: the same shape, ~5 MB (for `kapi inspect`);
- catalog-100kb.json: a typical catalog file (~100 KB);
- md-50mb/: a tree of Markdown files (~50 MB) built from the Rust book's chapters;
- page-40kb.md: one typical Markdown page;
- rails-8mb.yml: ~8 MB of YAML, copies of testdata's rails-i18n-en.yml under one root;
- catalog-20mb.xlf: an XLIFF 1.2 catalog of ~20 MB (inline `<g>`, a placeholder, an entity, a
  target with a state, a note in every unit).

Usage: gen-formats.py OUT RUST_BOOK_DIR
"""
import json
import os
import random
import sys

WORDS = (
    "account archive billing browser cache channel checkout client cluster comment "
    "dashboard delivery device document download draft editor export feature file folder "
    "gateway guide invoice language layout library license message metric module network "
    "notice order package page password payment plugin preview profile project queue "
    "receipt record release report request review role schedule search session setting "
    "share snapshot source status storage stream style subscription task team template "
    "theme ticket token update upload user version volume warning widget workspace"
).split()


def sentence(rng, n=None):
    n = n or rng.randint(3, 12)
    words = [rng.choice(WORDS) for _ in range(n)]
    words[0] = words[0].capitalize()
    return " ".join(words)


def value(rng, i):
    kind = i % 10
    if kind == 0:
        return f"{sentence(rng)} {{name}}."
    if kind == 1:
        return f"{sentence(rng)} {{{{count}}}} {rng.choice(WORDS)}s"
    if kind == 2:
        return f"{{count, plural, =0 {{No {rng.choice(WORDS)}s}} one {{# {rng.choice(WORDS)}}} other {{# {rng.choice(WORDS)}s}}}}"
    if kind == 3:
        return f"{sentence(rng)} <b>{rng.choice(WORDS)}</b> %s"
    if kind == 4:
        return f'{sentence(rng)} "quoted"\n{sentence(rng, 3)} é'  # escapes in the JSON
    return sentence(rng) + "."


def catalog(rng, target_bytes):
    root = {}
    size = 0
    i = 0
    while size < target_bytes:
        section = root.setdefault(f"{rng.choice(WORDS)}{i // 500}", {})
        group = section.setdefault(rng.choice(WORDS), {})
        key = f"{rng.choice(WORDS)}_{i}"
        if i % 17 == 0:
            group[key + "_one"] = f"One {rng.choice(WORDS)}"
            group[key + "_other"] = f"{{{{count}}}} {rng.choice(WORDS)}s"
        else:
            group[key] = value(rng, i)
        size += 60 + len(key)
        i += 1
    return root


def write_json(path, data):
    text = json.dumps(data, ensure_ascii=False, indent=2)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text + "\n")


def rails_yaml(path, one, target_bytes):
    """Copies of a Rails locale file's tree, each under its own key of one root."""
    with open(one, encoding="utf-8") as f:
        lines = f.read().splitlines()
    body = lines[lines.index("en:") + 1:]
    out, size, i = ["root:"], 0, 0
    while size < target_bytes:
        out.append(f"  copy{i}:")
        out.extend("  " + line for line in body)
        size += sum(len(line) + 3 for line in body)
        i += 1
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")


XLIFF_UNIT = (
    '<trans-unit id="ID" resname="k"><source xml:lang="en">Text with <g id="1">bold</g> and {0} '
    "&amp; more text here, quite a long sentence.</source><target xml:lang=\"fr\" "
    'state="translated">Texte avec <g id="1">gras</g> et {0} &amp; plus de texte ici, une phrase '
    "assez longue.</target><note>A note</note></trans-unit>\n"
)


def xliff_catalog(path, target_bytes):
    parts = ['<?xml version="1.0"?>\n<xliff version="1.2"><file target-language="fr"><body>\n']
    size, i = 0, 0
    while size < target_bytes:
        unit = XLIFF_UNIT.replace("ID", str(i))
        parts.append(unit)
        size += len(unit)
        i += 1
    parts.append("</body></file></xliff>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(parts))


def chapters(book):
    out = []
    for root, _, files in os.walk(book):
        for name in sorted(files):
            if name.endswith(".md"):
                with open(os.path.join(root, name), encoding="utf-8") as f:
                    out.append(f.read())
    return out


def main():
    out, book = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    rng = random.Random(20261129)
    for name, size in [("catalog-50mb.json", 50_000_000), ("catalog-5mb.json", 5_000_000), ("catalog-100kb.json", 100_000)]:
        path = os.path.join(out, name)
        if not os.path.exists(path):
            write_json(path, catalog(rng, size * 0.62))
    rails = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "testdata", "formats", "yaml", "rails-i18n-en.yml")
    if not os.path.exists(os.path.join(out, "rails-8mb.yml")):
        rails_yaml(os.path.join(out, "rails-8mb.yml"), rails, 8 << 20)
    if not os.path.exists(os.path.join(out, "catalog-20mb.xlf")):
        xliff_catalog(os.path.join(out, "catalog-20mb.xlf"), 20_000_000)
    texts = chapters(book)
    texts.sort(key=len)
    page = min(texts, key=lambda t: abs(len(t.encode()) - 40_000))
    with open(os.path.join(out, "page-40kb.md"), "w", encoding="utf-8") as f:
        f.write(page)
    tree = os.path.join(out, "md-50mb")
    if not os.path.isdir(tree):
        os.makedirs(tree)
        total, n = 0, 0
        while total < 50_000_000:
            text = texts[n % len(texts)]
            sub = os.path.join(tree, f"part{n // 500:03d}")
            os.makedirs(sub, exist_ok=True)
            with open(os.path.join(sub, f"ch{n:05d}.md"), "w", encoding="utf-8") as f:
                f.write(text)
            total += len(text.encode())
            n += 1


if __name__ == "__main__":
    main()
