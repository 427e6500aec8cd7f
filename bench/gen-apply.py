#!/usr/bin/env python3
"""Inputs for bench/apply.sh, deterministic (fixed seed), written under OUT:

- md/: a kapi project holding docs/guide.md, a ~100 KB Markdown guide (headings, paragraphs
  with links, inline code and emphasis, bullet and numbered lists, a few code blocks);
- json/: a kapi project holding locales/en.json, a ~5 MB nested i18n catalog (dotted-path
  keys three to four levels deep, placeholders `{name}` and `{{count}}`, ICU plurals and
  selects, i18next `_one`/`_other` pairs, inline `<b>` tags);
- pristine/: a copy of each content file, which apply.sh restores before every timed run.

Each project has the default gate (fail on major), a few terms (three forbidden: major) and a
voice with prohibited patterns and constraints, so the commit check has real work to do. A
few existing blocks already carry findings, as real content does.

Usage: gen-apply.py OUT
"""
import json
import os
import random
import shutil
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
VERBS = (
    "open select create delete rename export import archive restore share invite "
    "configure enable disable review approve schedule upload download sync filter"
).split()
ADJ = "new shared default private public current previous archived pending active".split()
LINKERS = [
    "Before you start,", "When the sync finishes,", "If the request fails,", "By default,",
    "In most workspaces,", "After an update,", "For large teams,", "On a new device,",
]

RECIPE_MD = """\
# The apply bench's project: the default gate (fail on major), terms and a voice.
version: v1
name: bench-apply
defaults:
  source_language: en
  voice: .kapi/voice.yaml
  terms_source: .kapi/terms.yaml
collections:
  - path: "docs/**/*.md"
gates:
  fail_on: major
"""
RECIPE_JSON = """\
# The apply bench's project: the default gate (fail on major), terms and a voice.
version: v1
name: bench-apply
defaults:
  source_language: en
  voice: .kapi/voice.yaml
  terms_source: .kapi/terms.yaml
collections:
  - name: app
    content:
      - path: "locales/en.json"
gates:
  fail_on: major
"""
TERMS = """\
version: v1
concepts:
  - id: use
    terms:
      - {text: use, lang: en, status: preferred}
      - {text: utilize, lang: en, status: forbidden, replacement: use}
      - {text: leverage, lang: en, status: forbidden, replacement: use}
  - id: sign-in
    terms:
      - {text: sign in, lang: en, status: preferred}
      - {text: log in, lang: en, status: deprecated, replacement: sign in}
  - id: allowlist
    terms:
      - {text: allowlist, lang: en, status: preferred}
      - {text: whitelist, lang: en, status: forbidden, replacement: allowlist}
  - id: workspace
    terms:
      - {text: workspace, lang: en, status: preferred}
      - {text: space, lang: en, status: admitted}
"""
VOICE = """\
name: Bench
description: The apply bench's voice, a few patterns and constraints.
style:
  prohibited_patterns:
    - regex: '(?i)\\b(simply|just|easily)\\b'
      description: Minimising words
      severity: minor
    - regex: '!{2,}'
      description: Stacked exclamation marks
      severity: minor
    - regex: '(?i)\\bclick here\\b'
      description: Link text should say where the link goes
      severity: major
  constraints:
    max_sentence_words: 30
    max_paragraph_sentences: 8
    severity: minor
"""


def words(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def sentence(rng, inline=True):
    parts = []
    if rng.random() < 0.3:
        parts.append(rng.choice(LINKERS))
    parts.append(f"{rng.choice(VERBS)} the {rng.choice(ADJ)} {rng.choice(WORDS)}")
    if inline:
        r = rng.random()
        if r < 0.2:
            parts.append(f"with `{rng.choice(WORDS)}_{rng.choice(WORDS)}`")
        elif r < 0.35:
            w = rng.choice(WORDS)
            parts.append(f"from the [{w} settings](https://example.com/docs/{w}/settings)")
        elif r < 0.45:
            parts.append(f"and then select **{rng.choice(WORDS).capitalize()}**")
        elif r < 0.5:
            parts.append(f"for the *{rng.choice(WORDS)}* view")
    parts.append(f"so the {words(rng, rng.randint(1, 3))} stays {rng.choice(ADJ)}")
    if rng.random() < 0.4:
        parts.append(f"for every {rng.choice(WORDS)} in the {rng.choice(WORDS)}")
    s = " ".join(parts)
    return s[0].upper() + s[1:] + "."


def paragraph(rng, n=None):
    return " ".join(sentence(rng) for _ in range(n or rng.randint(2, 5)))


def markdown(rng, target_bytes):
    out = [f"# The {rng.choice(WORDS)} guide\n", paragraph(rng, 3) + "\n"]
    size = sum(len(x) for x in out)
    section = 0
    while size < target_bytes:
        section += 1
        chunk = [f"## {section}. {words(rng, rng.randint(2, 4)).capitalize()}\n"]
        for sub in range(rng.randint(1, 3)):
            if sub:
                chunk.append(f"### {words(rng, rng.randint(2, 3)).capitalize()}\n")
            chunk.append(paragraph(rng) + "\n")
            kind = rng.random()
            if kind < 0.35:
                chunk.append("\n".join(f"- {sentence(rng)}" for _ in range(rng.randint(3, 6))) + "\n")
            elif kind < 0.55:
                chunk.append("\n".join(f"{i}. {sentence(rng)}" for i in range(1, rng.randint(3, 7))) + "\n")
            elif kind < 0.65:
                cmd = rng.choice(VERBS)
                chunk.append(f"```sh\nkapi-demo {cmd} --{rng.choice(WORDS)} ./{rng.choice(WORDS)}\n```\n")
            elif kind < 0.7:
                # Existing findings, as real content has: a forbidden term, a minimising word.
                chunk.append(f"Simply utilize the {rng.choice(WORDS)} to {rng.choice(VERBS)} it.\n")
            chunk.append(paragraph(rng) + "\n")
        text = "\n".join(chunk) + "\n"
        out.append(text)
        size += len(text.encode())
    return "\n".join(out)


def value(rng, i):
    kind = i % 12
    w = rng.choice
    if kind == 0:
        return f"{sentence(rng, False)[:-1]}, {{name}}."
    if kind == 1:
        return f"{{{{count}}}} {w(WORDS)}s {w(['waiting', 'selected', 'synced', 'left'])}"
    if kind == 2:
        return (f"{{count, plural, =0 {{No {w(WORDS)}s yet}} one {{# {w(WORDS)} in {{folder}}}} "
                f"other {{# {w(WORDS)}s in {{folder}}}}}}")
    if kind == 3:
        return f"{sentence(rng, False)[:-1]} <b>{w(WORDS)}</b>."
    if kind == 4:
        return (f"{{gender, select, female {{She shared the {w(WORDS)}}} male {{He shared the "
                f"{w(WORDS)}}} other {{They shared the {w(WORDS)}}}}}")
    if kind == 5:
        return f"{w(VERBS).capitalize()} {w(WORDS)}"
    if kind == 6:
        return f"{sentence(rng, False)[:-1]} by {{date}} at {{time}}."
    if kind == 7:
        return f'{sentence(rng, False)} "{w(WORDS)}" \u2014 {w(WORDS)}'
    return sentence(rng, False)


def catalog(rng, target_bytes):
    root = {}
    size = 0
    i = 0
    areas = ["app", "settings", "billing", "editor", "admin", "onboarding", "errors", "share"]
    while size < target_bytes:
        area = root.setdefault(f"{areas[i % len(areas)]}_{i // 4000}", {})
        screen = area.setdefault(rng.choice(WORDS), {})
        group = screen.setdefault(rng.choice(["title", "body", "actions", "hints", "errors", "labels"]), {})
        key = f"{rng.choice(VERBS)}_{rng.choice(WORDS)}_{i}"
        if i % 17 == 0:
            group[key + "_one"] = f"One {rng.choice(WORDS)} {{{{status}}}}"
            group[key + "_other"] = f"{{{{count}}}} {rng.choice(WORDS)}s {{{{status}}}}"
            size += 2 * (len(key) + 40)
        else:
            v = value(rng, i)
            group[key] = v
            size += len(key) + len(v) + 20
        i += 1
    return root


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def project(root, recipe):
    write(os.path.join(root, "kapi.yaml"), recipe)
    write(os.path.join(root, ".kapi", "terms.yaml"), TERMS)
    write(os.path.join(root, ".kapi", "voice.yaml"), VOICE)
    write(os.path.join(root, ".kapi", ".gitignore"), "work/\n")


def main():
    out = sys.argv[1]
    if os.path.isdir(out):
        shutil.rmtree(out)
    rng = random.Random(20261129)
    md = markdown(rng, 100_000)
    cat = json.dumps(catalog(rng, 5_000_000 * 0.9), ensure_ascii=False, indent=2) + "\n"
    project(os.path.join(out, "md"), RECIPE_MD)
    project(os.path.join(out, "json"), RECIPE_JSON)
    for rel, text in [("md/docs/guide.md", md), ("json/locales/en.json", cat)]:
        write(os.path.join(out, rel), text)
        write(os.path.join(out, "pristine", rel), text)


if __name__ == "__main__":
    main()
