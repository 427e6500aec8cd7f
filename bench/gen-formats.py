#!/usr/bin/env python3
"""Inputs for bench/formats.sh, deterministic (fixed seed), written under OUT:

- catalog-50mb.json: a nested i18n catalog of ~50 MB (placeholders, i18next plurals, ICU);
- catalog-5mb.json: the same shape, ~5 MB (for `kapi inspect`);
- catalog-100kb.json: a typical catalog file (~100 KB);
- md-50mb/: a tree of Markdown files (~50 MB) built from the Rust book's chapters;
- page-40kb.md: one typical Markdown page.

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
