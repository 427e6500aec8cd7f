#!/usr/bin/env python3
"""Prepare the bench's generated inputs from the Rust book copy in bench/data/rust-book.

  gen-tree.py single OUT_DIR        one ~10 KB Markdown file: OUT_DIR/doc.md
  gen-tree.py tree OUT_DIR [COUNT]  COUNT (default 10000) files of 1-3 KB in 100 folders
  gen-tree.py small OUT_DIR [COUNT] COUNT (default 5000) files of about 1 KB (0.8-1.2 KB)

Deterministic: the same corpus gives byte-identical output (fixed seed, sorted input).
Blocks (paragraphs, lists, fenced code blocks, tables) are taken whole from the book,
so the generated pages read like the book: prose with some code.
"""
import random
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "rust-book"
SEED = 20261129


def blocks_of(text):
    """Split Markdown into blocks on blank lines, keeping fenced code blocks whole."""
    blocks, cur, fence = [], [], None
    for line in text.splitlines():
        stripped = line.lstrip()
        if fence:
            cur.append(line)
            if stripped.startswith(fence):
                fence = None
            continue
        if stripped.startswith("```") or stripped.startswith("~~~"):
            fence = stripped[:3]
            cur.append(line)
            continue
        if not line.strip():
            if cur:
                blocks.append("\n".join(cur))
                cur = []
            continue
        cur.append(line)
    if cur:
        blocks.append("\n".join(cur))
    return blocks


def corpus_files():
    return sorted(p for p in CORPUS.rglob("*.md") if ".github" not in p.parts)


def load_corpus():
    headings, body = [], []
    for path in corpus_files():
        for block in blocks_of(path.read_text(encoding="utf-8", errors="replace")):
            if block.startswith("#"):
                title = block.lstrip("#").strip()
                if "\n" not in block and 3 <= len(title) <= 70:
                    headings.append(title)
            elif block.startswith("[") and "]:" in block:
                continue  # link reference definitions
            elif block.startswith("<"):
                continue  # raw HTML
            elif 60 <= len(block) <= 1500:
                body.append(block)
    return headings, body


def single(out):
    files = corpus_files()
    best = min(files, key=lambda p: (abs(p.stat().st_size - 10240), str(p)))
    out.mkdir(parents=True, exist_ok=True)
    (out / "doc.md").write_bytes(best.read_bytes())
    print(f"single: {best.relative_to(CORPUS)} ({best.stat().st_size} bytes) -> {out / 'doc.md'}")


def tree(out, count, low=1000, high=3000, block_max=None):
    headings, body = load_corpus()
    if block_max:
        body = [b for b in body if len(b) <= block_max]
    rng = random.Random(SEED)
    total = 0
    for i in range(count):
        folder = out / f"part-{i // 100:02d}" / f"chapter-{(i // 10) % 10}"
        folder.mkdir(parents=True, exist_ok=True)
        target = rng.randint(low, high)
        parts = [f"# {rng.choice(headings)}"]
        size = len(parts[0])
        while size < target:
            if rng.random() < 0.12:
                block = f"## {rng.choice(headings)}"
            else:
                block = rng.choice(body)
            parts.append(block)
            size += len(block) + 2
        text = "\n\n".join(parts) + "\n"
        (folder / f"page-{i:05d}.md").write_text(text, encoding="utf-8")
        total += len(text.encode("utf-8"))
    print(f"tree: {count} files, {total} bytes -> {out}")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("single", "tree", "small"):
        sys.exit(__doc__)
    out = Path(sys.argv[2])
    if sys.argv[1] == "single":
        single(out)
    elif sys.argv[1] == "small":
        tree(out, int(sys.argv[3]) if len(sys.argv) > 3 else 5000, 700, 1000, 300)
    else:
        tree(out, int(sys.argv[3]) if len(sys.argv) > 3 else 10000)


if __name__ == "__main__":
    main()
