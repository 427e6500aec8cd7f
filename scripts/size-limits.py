#!/usr/bin/env python3
"""Holds the code to its size limits: no function over 120 lines, no file over 1,200 lines of
non-test code. `make lint` runs it; it prints each breach with its place and exits 1.

Test code is not held to the limits: files named `tests.rs` or under a `tests/` folder, and
`#[cfg(test)]` modules inside a file (their lines do not count toward the file's). A function
is measured from its `fn` line to its closing brace. The scan knows Rust's comments, strings,
raw strings, byte and char literals and lifetimes, so a brace inside them never counts.
"""

import pathlib
import re
import sys

MAX_FN_LINES = 120
MAX_FILE_LINES = 1200
ROOTS = ["core/src", "host/src", "cli/src", "e2e/src"]


def tokens(src):
    """Yields (kind, text, line) for the tokens that matter: identifiers, `{`, `}`, `;`, `#`,
    `[`, `]`, `(`, `)`; comments and literals are skipped."""
    i, n, line = 0, len(src), 1
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif src.startswith("//", i):
            j = src.find("\n", i)
            i = n if j < 0 else j
        elif src.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if src.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif src.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    line += src[i] == "\n"
                    i += 1
        elif (m := re.compile(r'b?r(#*)"').match(src, i)) and (
            i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")
        ):
            end = '"' + m.group(1)
            j = src.find(end, m.end())
            j = n if j < 0 else j + len(end)
            line += src.count("\n", i, j)
            i = j
        elif c == '"' or (c == "b" and src.startswith('b"', i)):
            i += 2 if c == "b" else 1
            while i < n and src[i] != '"':
                if src[i] == "\\":
                    i += 1
                line += i < n and src[i] == "\n"
                i += 1
            i += 1
        elif c == "'":
            # A char literal ('x', '\n', '\u{1F600}', '{') or a lifetime ('a, 'static).
            m = re.compile(r"'(\\(u\{[0-9a-fA-F]*\}|x..|.)|[^\\'])'").match(src, i)
            i = m.end() if m else i + 1
        elif c.isalpha() or c == "_":
            j = i
            while j < n and (src[j].isalnum() or src[j] == "_"):
                j += 1
            yield ("ident", src[i:j], line)
            i = j
        elif c in "{};#[]()":
            yield (c, c, line)
            i += 1
        else:
            i += 1


def measure(src):
    """Returns (non-test line count, [(fn name, start line, length)])."""
    toks = list(tokens(src))
    total = src.count("\n") + (0 if src.endswith("\n") else 1)
    test_lines = 0
    fns = []
    stack = []  # (kind, name, start line, is_test) per open brace
    pending_fn = None
    pending_test = False
    i = 0
    while i < len(toks):
        kind, text, line = toks[i]
        if kind == "#" and i + 1 < len(toks) and toks[i + 1][0] == "[":
            # An attribute: `#[cfg(test)]` marks the item after it as test code.
            j, depth, words = i + 1, 0, []
            while j < len(toks):
                if toks[j][0] == "[":
                    depth += 1
                elif toks[j][0] == "]":
                    depth -= 1
                    if depth == 0:
                        break
                elif toks[j][0] == "ident":
                    words.append(toks[j][1])
                j += 1
            # `#[cfg(test)]`, `#[cfg(all(test, unix))]`: test code (not `not(test)`).
            if words[:1] == ["cfg"] and "test" in words and "not" not in words:
                pending_test = True
            i = j + 1
            continue
        if kind == "ident" and text == "fn" and i + 1 < len(toks) and toks[i + 1][0] == "ident":
            pending_fn = (toks[i + 1][1], line)
        elif kind == ";":
            # A `;` inside parentheses or brackets (`-> [u8; 4]`) ends no item.
            if not any(s[0] == "paren" for s in stack):
                pending_fn = None
                pending_test = False
        elif kind in "([":
            stack.append(("paren", None, line, False, False))
        elif kind in ")]":
            if stack and stack[-1][0] == "paren":
                stack.pop()
        elif kind == "{":
            outer_test = any(s[3] for s in stack)
            root_test = pending_test and not outer_test
            if pending_fn:
                stack.append(("fn", pending_fn[0], pending_fn[1], outer_test or pending_test, root_test))
                pending_fn = None
            else:
                stack.append(("block", None, line, outer_test or pending_test, root_test))
            pending_test = False
        elif kind == "}":
            while stack and stack[-1][0] == "paren":
                stack.pop()
            if stack:
                k, name, start, in_test, root_test = stack.pop()
                if root_test:
                    test_lines += line - start + 1
                if k == "fn" and not in_test:
                    fns.append((name, start, line - start + 1))
        i += 1
    return total - test_lines, fns


def is_test_file(path):
    return path.name == "tests.rs" or "tests" in path.parts[:-1]


def main():
    root = pathlib.Path(__file__).resolve().parent.parent
    breaches = []
    for base in ROOTS:
        for path in sorted((root / base).rglob("*.rs")):
            if is_test_file(path.relative_to(root)):
                continue
            rel = path.relative_to(root)
            lines, fns = measure(path.read_text(encoding="utf-8"))
            if lines > MAX_FILE_LINES:
                breaches.append(f"{rel}: {lines} lines of non-test code (at most {MAX_FILE_LINES}): split it along its steps")
            for name, start, length in fns:
                if length > MAX_FN_LINES:
                    breaches.append(f"{rel}:{start}: fn {name} is {length} lines (at most {MAX_FN_LINES}): split it into named phases")
    for b in breaches:
        print(b)
    if breaches:
        print(f"size-limits: {len(breaches)} over the limits")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
