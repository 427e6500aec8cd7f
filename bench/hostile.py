#!/usr/bin/env python3
"""kapi on hostile inputs: what one process costs in wall time and peak memory when the input
is built to be expensive (issue 15, item 7). Each case generates its input into
bench/work/hostile/ (git-ignored), runs the release binary under `/usr/bin/time -v` and
records the wall time, the maximum resident set size and the exit code; the figures print as
a Markdown table. The target: time linear in the input, peak memory at most about 5x the
input plus a few MB.

    make bench-hostile                                  (release build, every case)
    KAPI_BIN=target/release/kapi python3 bench/hostile.py [CASE...]

A case is a `Case(name, what, run)` in CASES: `run(case_dir)` writes its input into
`case_dir` (bench/work/hostile/project/cases/NAME/) and returns a `Result`; `cli()` and `mcp()` below do the measuring, so a new case
is a generator and one line in the list. `HOSTILE_TIMEOUT` (seconds, default 900) stops a
case that runs longer; `HOSTILE_MARKDOWN=FILE` also writes the table to FILE.

The check cases run in one small project (`project()`): its terms deprecate `login` for
`sign in`, its voice limits a sentence to 35 words, so every word of `login login …` is a
`terms.deprecated` finding and every second one a `hygiene.repeated-word`. The reader cases
(`docx-…`, `json-…`, `markdown-…`, `po-…`, `yaml-…`, `xliff-…`, `xliff2-…`, `android-…`,
`properties-…`, `html-…`, `text-…`) inspect, check or apply one edit to a file built to cost
more than its size: nested tables, a zip part that inflates, a 50 MB catalog, a key repeated
in every value, millions of short paragraphs or values; a refused file notes its error.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)
KAPI = os.environ.get("KAPI_BIN", os.path.join(ROOT, "target/release/kapi"))
WORK = os.path.join(os.environ.get("BENCH_WORK", os.path.join(BENCH, "work")), "hostile")
TIMEOUT = float(os.environ.get("HOSTILE_TIMEOUT", "900"))
TIME = "/usr/bin/time"

# kapi must bind the bench project (make exports KAPI_NO_PROJECT=1 for the test suite).
ENV = {k: v for k, v in os.environ.items() if k not in ("KAPI_NO_PROJECT", "KAPI_PROJECT", "KAPI_ACTOR")}


class Case:
    def __init__(self, name, what, run):
        self.name, self.what, self.run = name, what, run


class Result:
    def __init__(self, input_bytes, wall=None, rss_kb=None, code=None, note=""):
        self.input_bytes, self.wall, self.rss_kb, self.code, self.note = (
            input_bytes, wall, rss_kb, code, note)


# ---------------------------------------------------------------------------------------
# Measuring

def parse_time(path):
    """(wall seconds, max RSS in KB) from a `/usr/bin/time -v` report."""
    text = open(path).read()
    wall = rss = None
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", text)
    if m:
        wall = int(m.group(1) or 0) * 3600 + int(m.group(2)) * 60 + float(m.group(3))
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    if m:
        rss = int(m.group(1))
    return wall, rss


def run_timed(case_dir, args, **kw):
    """Starts `/usr/bin/time -v kapi ARGS` in its own process group (so a timeout stops kapi
    too); the Popen and the report's path."""
    report = os.path.join(case_dir, "time.txt")
    if os.path.exists(report):
        os.remove(report)
    p = subprocess.Popen([TIME, "-v", "-o", report, KAPI, *args], cwd=project(), env=ENV,
                         start_new_session=True, **kw)
    return p, report


def stop(p):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    p.wait()


def cli(case_dir, args, input_bytes):
    """`kapi ARGS --json` in the bench project under /usr/bin/time -v; the note gives the
    report's finding counts (stdout goes to a file, read after the run)."""
    out_path = os.path.join(case_dir, "stdout.json")
    with open(out_path, "wb") as out:
        p, report = run_timed(case_dir, args, stdout=out, stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            stop(p)
            return Result(input_bytes, note=f"stopped after {TIMEOUT:.0f} s")
    wall, rss = parse_time(report)
    try:
        with open(out_path) as f:
            report = json.load(f)
        held = len(report.get("findings", []))
        total = report.get("summary", {}).get("findings")
        note = f"{total} findings, {held} held"
    except ValueError:
        note = "stdout is not JSON"
    os.remove(out_path)
    return Result(input_bytes, wall, rss, p.returncode, note)


def mcp(case_dir, calls, input_bytes):
    """`kapi mcp -p PROJECT` under /usr/bin/time -v: initialize, then every call in `calls`
    (tool name, arguments) sent at once and a `ping` after them; the note says which answer
    came first and what the last call's report held. The process ends when stdin closes."""
    p, report = run_timed(case_dir, ["mcp", "-p", project(), "--all"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(msg):
        p.stdin.write((json.dumps(msg) + "\n").encode())
        p.stdin.flush()

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "bench", "version": "1"}}})
    p.stdout.readline()
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    ids = {}
    for i, (name, arguments) in enumerate(calls, start=1):
        ids[i] = name
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": name, "arguments": arguments}})
    ping = len(calls) + 1
    ids[ping] = "ping"
    send({"jsonrpc": "2.0", "id": ping, "method": "ping"})
    order, last = [], None
    deadline = time.monotonic() + TIMEOUT
    while len(order) < len(ids) and time.monotonic() < deadline:
        line = p.stdout.readline()
        if not line:
            break
        msg = json.loads(line)
        if msg.get("id") in ids:
            order.append(ids[msg["id"]])
            if msg["id"] == len(calls):
                last = msg
    p.stdin.close()
    try:
        p.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        stop(p)
        return Result(input_bytes, note=f"stopped after {TIMEOUT:.0f} s")
    wall, rss = parse_time(report)
    note = "answers: " + ", ".join(order)
    content = (last or {}).get("result", {}).get("structuredContent") or {}
    if "summary" in content:
        note += (f"; {content['summary'].get('findings')} findings, "
                 f"{len(content.get('findings', []))} held")
    return Result(input_bytes, wall, rss, p.returncode, note)


# ---------------------------------------------------------------------------------------
# Inputs

def project():
    """The bench project (written once): terms deprecating `login`, a 35-word sentence limit,
    no gate failure on minor findings."""
    root = os.path.join(WORK, "project")
    files = {
        "kapi.yaml": 'version: v1\nname: hostile\ndefaults:\n  source_language: en\n'
                     '  voice: .kapi/voice.yaml\n  terms_source: .kapi/terms.yaml\n'
                     'collections:\n  - path: "docs/**/*.md"\ngates:\n  fail_on: major\n',
        ".kapi/voice.yaml": "name: hostile\ndescription: Bench voice.\nstyle:\n  constraints:\n"
                            "    max_sentence_words: 35\n",
        ".kapi/terms.yaml": "version: v1\nconcepts:\n  - id: sign-in\n    terms:\n"
                            "      - {text: sign in, lang: en, status: preferred}\n"
                            "      - {text: login, lang: en, status: deprecated, replacement: sign in}\n",
    }
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.exists(path) or open(path).read() != text:
            with open(path, "w") as f:
                f.write(text)
    return root


def words(n, per_line=None, word="login"):
    """`n` copies of `word`: one line, or `per_line` to a line."""
    if per_line is None:
        return " ".join([word] * n) + "\n"
    lines = [" ".join([word] * per_line) for _ in range(n // per_line)]
    return "\n".join(lines) + "\n"


def write(case_dir, name, text):
    path = os.path.join(case_dir, name)
    with open(path, "w") as f:
        f.write(text)
    return path, len(text.encode())


def check_words(n, per_line=None):
    def run(case_dir):
        path, size = write(case_dir, "input.txt", words(n, per_line))
        return cli(case_dir, ["check", "--json", path], size)
    return run


def check_text_mcp(target_bytes):
    def run(case_dir):
        text = words(target_bytes // len("login "))
        return mcp(case_dir, [("check_text", {"text": text})], len(text.encode()))
    return run


def highlighted_html(size):
    """HTML of about `size` bytes like the Python docs' highlighted listings: paragraphs and
    `<pre>` blocks of `<span>` tokens, a code per 12 bytes."""
    listing = "".join(f'<span class="n">x{i}</span><span class="o">=</span> ' for i in range(200))
    section = f"<p>Call <code>f</code> as shown.</p>\n<pre>{listing}</pre>\n"
    return "<html><body>\n" + section * max(1, size // len(section)) + "</body></html>\n"


def check_html_mcp(target_bytes):
    def run(case_dir):
        text = highlighted_html(target_bytes)
        return mcp(case_dir, [("check_text", {"text": text, "format": "html"})], len(text.encode()))
    return run


# Readers: a .docx whose tables nest or whose part inflates, a large JSON catalog, a key
# repeated in every value, many short Markdown paragraphs.

W_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def docx_file(case_dir, chunks):
    """A .docx (deflated) whose `word/document.xml` is the body `chunks` give."""
    import zipfile
    path = os.path.join(case_dir, "input.docx")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        with z.open("word/document.xml", "w", force_zip64=True) as f:
            f.write(f'<?xml version="1.0" encoding="UTF-8"?><w:document {W_NS}><w:body>'.encode())
            for chunk in chunks:
                f.write(chunk.encode())
            f.write(b"</w:body></w:document>")
    return path, os.path.getsize(path)


def nested_tables(depth):
    """`depth` tables, each in the first cell of the one before, a paragraph in each cell."""
    def body():
        for i in range(depth):
            yield f"<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Cell {i} text.</w:t></w:r></w:p>"
        for _ in range(depth):
            yield "</w:tc></w:tr></w:tbl><w:p/>"
    return body()


def docx_paragraphs(inflated):
    """Paragraphs of one sentence, `inflated` bytes of XML in all."""
    p = "<w:p><w:r><w:t>The quick brown fox jumps over the lazy dog again.</w:t></w:r></w:p>"
    return (p * 1000 for _ in range(inflated // len(p) // 1000))


def catalog(size):
    """A flat JSON catalog of about `size` bytes: `"key.sectionN.itemM": "…"` pairs."""
    lines, total, i = [], 0, 0
    while total < size:
        line = f'  "key.section{i // 100}.item{i}": "Save the file {i} before you close the window."'
        lines.append(line)
        total += len(line) + 2
        i += 1
    return "{\n" + ",\n".join(lines) + "\n}\n"


def po_catalog(size):
    """A gettext catalog of about `size` bytes: a header, then one message per reference."""
    out = ['msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: fr\\n"\n']
    total, i = len(out[0]), 0
    while total < size:
        m = (f'#: src/file{i}.c:{i}\nmsgid "Open file number {i} now"\n'
             f'msgstr "Ouvrir le fichier {i} maintenant"\n')
        out.append(m)
        total += len(m) + 1
        i += 1
    return "\n".join(out)


def short_sentences(size, overhead):
    """Sentences of two to six words, as many as fill about `size` bytes when each costs
    `overhead` bytes more than its text."""
    import random
    rng = random.Random(2)
    vocabulary = "the quick brown fox jumps over lazy dog save file window close open".split()
    out, total = [], 0
    while total < size:
        p = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(2, 6))).capitalize() + "."
        out.append(p)
        total += len(p) + overhead
    return out


def short_paragraphs(size):
    """Markdown (or plain text) of about `size` bytes: paragraphs of two to six words, a
    blank line apart."""
    return "\n\n".join(short_sentences(size, 2)) + "\n"


def html_paragraphs(size):
    """An HTML page of about `size` bytes: a body of `<p>` paragraphs of two to six words."""
    head = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            "<title>Short paragraphs</title>\n</head>\n<body>\n")
    body = "".join(f"<p>{p}</p>\n" for p in short_sentences(size - len(head), 8))
    return head + body + "</body>\n</html>\n"


def pieces(size, piece):
    """`piece(0)`, `piece(1)`, ... joined until they come to about `size` bytes."""
    out, total, i = [], 0, 0
    while total < size:
        out.append(piece(i))
        total += len(out[-1])
        i += 1
    return "".join(out)


def one_list(size):
    """Markdown of about `size` bytes that is one list of short items: no blank line between
    blocks, so the reader finds no place to cut it."""
    return pieces(size, lambda i: f"- item {i} of the list\n")


def loose_list(size):
    """Markdown of about `size` bytes that is one loose list (a blank line between items),
    each item with emphasis, a link and a code span."""
    return pieces(size, lambda i: f"- Save *the* file {i} and [open](u) `it`.\n\n")


def one_quote(size):
    """Markdown of about `size` bytes that is one block quote of short paragraphs."""
    return pieces(size, lambda i: f"> Open the window {i} and *save* the file now.\n>\n")


def one_table(size):
    """Markdown of about `size` bytes that is one table of short rows."""
    return "| a | b |\n|---|---|\n" + pieces(size, lambda i: f"| row {i} with *text* | value {i} |\n")


def inline_paragraph(size):
    """HTML of about `size` bytes that is one paragraph of bold words: a code per tag."""
    return "<p>" + pieces(size, lambda i: f"<b>w{i % 10}</b> ") + "</p>\n"


def emphasis_paragraph(size):
    """Markdown of about `size` bytes that is one paragraph of emphasised words."""
    return pieces(size, lambda i: f"*w{i % 10}* ") + "\n"


def marked_paragraphs(size, reference=False):
    """Markdown of about `size` bytes: short paragraphs a blank line apart, each with
    emphasis, strong, a code span and a link (pulldown-cmark makes a tree node of each
    marker); with `reference`, one link reference definition at the end."""
    line = "Save *the* **file** `now` [x](y) *a* *b* *c*.\n\n"
    text = line * max(1, size // len(line))
    return text + "[a]: /url\n" if reference else text


def placeholder_value(size):
    """A JSON catalog of one value of about `size` bytes, a `{a}` placeholder per word."""
    return json.dumps({"k": pieces(size, lambda i: "{a} ")})


def printf_message(size):
    """A PO file of one message of about `size` bytes, a `%s` per word, and its target."""
    value = pieces(size // 2, lambda i: "%s ")
    return ('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
            f'#, c-format\nmsgid "{value}"\nmsgstr "{value}"\n')


def tagged_string(size):
    """Android resources of one `<string>` of about `size` bytes, a `<b>` per word."""
    return ("<resources>\n<string name=\"k\">" + pieces(size, lambda i: "<b>w</b> ")
            + "</string>\n</resources>\n")


def inline_unit(size):
    """An XLIFF 1.2 file of one trans-unit of about `size` bytes, an `<x/>` per word."""
    return ('<xliff version="1.2"><file source-language="en" datatype="plaintext" original="a">'
            '<body><trans-unit id="1"><source>' + pieces(size, lambda i: '<x id="1"/> ')
            + "</source></trans-unit></body></file></xliff>\n")


def yaml_catalog(size):
    """A Rails-style YAML catalog of about `size` bytes: `en:` over groups of 100 keys, each
    a short quoted string."""
    out, total, i = ["en:\n"], 4, 0
    while total < size:
        if i % 100 == 0:
            group = f"  group{i // 100}:\n"
            out.append(group)
            total += len(group)
        line = f'    key{i}: "Save the file {i} before you close the window."\n'
        out.append(line)
        total += len(line)
        i += 1
    return "".join(out)


def xliff_catalog(size, version):
    """An XLIFF file (`version` "1.2" or "2.0") of about `size` bytes: one `<file>` of
    translated units, a short source and target each."""
    if version == "1.2":
        head = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<xliff version="1.2" xmlns="urn:oasis:names:tc:xliff:document:1.2">\n'
                '  <file source-language="en" target-language="fr" datatype="plaintext" '
                'original="messages">\n    <body>\n')
        unit = ('      <trans-unit id="key{i}">\n'
                "        <source>Open file number {i} now</source>\n"
                "        <target>Ouvrir le fichier {i} maintenant</target>\n"
                "      </trans-unit>\n")
        tail = "    </body>\n  </file>\n</xliff>\n"
    else:
        head = ('<?xml version="1.0" encoding="UTF-8"?>\n'
                '<xliff version="2.0" xmlns="urn:oasis:names:tc:xliff:document:2.0" '
                'srcLang="en" trgLang="fr">\n  <file id="messages">\n')
        unit = ('    <unit id="key{i}">\n      <segment>\n'
                "        <source>Open file number {i} now</source>\n"
                "        <target>Ouvrir le fichier {i} maintenant</target>\n"
                "      </segment>\n    </unit>\n")
        tail = "  </file>\n</xliff>\n"
    out, total, i = [head], len(head), 0
    while total < size:
        u = unit.format(i=i)
        out.append(u)
        total += len(u)
        i += 1
    out.append(tail)
    return "".join(out)


def android_strings(size):
    """Android string resources (`res/values/strings.xml`) of about `size` bytes: one
    `<resources>` of short `<string>` values."""
    head = '<?xml version="1.0" encoding="utf-8"?>\n<resources>\n'
    out, total, i = [head], len(head), 0
    while total < size:
        line = f'    <string name="key_{i}">Save the file {i} before you close the window.</string>\n'
        out.append(line)
        total += len(line)
        i += 1
    out.append("</resources>\n")
    return "".join(out)


def properties_catalog(size):
    """A Java properties file of about `size` bytes: a comment, then `key=value` lines."""
    out, total, i = ["# Messages\n"], 11, 0
    while total < size:
        line = f"key.section{i // 100}.item{i}=Save the file {i} before you close the window.\n"
        out.append(line)
        total += len(line)
        i += 1
    return "".join(out)


def cli_read(case_dir, args, input_bytes):
    """`kapi ARGS` timed; the note is what came out: the blocks read, the findings, the
    change set's status, or the first line of the error."""
    out_path, err_path = os.path.join(case_dir, "stdout.json"), os.path.join(case_dir, "stderr")
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        p, report = run_timed(case_dir, args, stdout=out, stderr=err)
        try:
            p.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            stop(p)
            return Result(input_bytes, note=f"stopped after {TIMEOUT:.0f} s")
    wall, rss = parse_time(report)
    note = ""
    try:
        with open(out_path) as f:
            doc = json.load(f)
        if "total" in doc:
            note = f"{doc['total']} blocks"
        elif "summary" in doc:
            note = f"{doc['summary'].get('findings')} findings"
        elif "status" in doc:
            note = f"{doc['status']}"
    except ValueError:
        pass
    if p.returncode != 0:
        with open(err_path, errors="replace") as f:
            first = f.readline().strip()
        try:
            first = json.loads(first).get("error", first)
        except ValueError:
            pass
        first = first.removeprefix("error: ")
        note = (first[:110] + "…") if len(first) > 110 else first
    os.remove(out_path)
    os.remove(err_path)
    return Result(input_bytes, wall, rss, p.returncode, note)


def read_case(verb, make):
    """`kapi inspect --json --limit 100 FILE` (the first page an assistant reads) or `kapi
    check --json FILE` on the input `make(case_dir)` writes (its path and size)."""
    def run(case_dir):
        path, size = make(case_dir)
        args = ["inspect", "--json", "--limit", "100", path] if verb == "inspect" else \
            ["check", "--json", path]
        return cli_read(case_dir, args, size)
    return run


def apply_case(make):
    """`kapi apply --json` of one `replace_text` on the first block that is not a heading,
    read (untimed) with `kapi inspect` first."""
    def run(case_dir):
        path, size = make(case_dir)
        first = subprocess.run([KAPI, "inspect", "--json", "--limit", "5", path], cwd=project(),
                               env=ENV, capture_output=True)
        block = next(b for b in json.loads(first.stdout)["blocks"] if b["role"] != "heading")
        change = {"schema": "kapi.change/v1", "operations": [{
            "op": "replace_text", "at": block["ref"], "if_match": block["rev"],
            "find": block["text"].split()[0], "replace": "Xyzzy"}]}
        set_path = os.path.join(case_dir, "change.json")
        with open(set_path, "w") as f:
            json.dump(change, f)
        return cli_read(case_dir, ["apply", "--json", set_path], size)
    return run


def verbs(name, what, make, edits=True):
    """The cases of one input (`make` writes it): `kapi inspect` (`name`), `kapi check`
    (`name-check`) and, in a format kapi edits, one `kapi apply` edit (`name-apply`)."""
    cases = [Case(name, f"`kapi inspect`: {what}", read_case("inspect", make)),
             Case(f"{name}-check", f"`kapi check`: {what}", read_case("check", make))]
    if edits:
        cases.append(Case(f"{name}-apply", f"`kapi apply`: one edit in {what}", apply_case(make)))
    return cases


def text_input(name, text):
    return lambda case_dir: write(case_dir, name, text() if callable(text) else text)


def docx_input(chunks):
    return lambda case_dir: docx_file(case_dir, chunks())


CATALOG = lambda: catalog(50 * 1024 * 1024)  # noqa: E731
LONG_KEY = lambda: '{"%s": [%s]}' % ("k" * 1024 * 1024, ",".join(['""'] * 20_000))  # noqa: E731
SHORT_MD = lambda: short_paragraphs(45 * 1024 * 1024)  # noqa: E731
PO = lambda: po_catalog(20 * 1024 * 1024)  # noqa: E731
MB20 = 20 * 1024 * 1024
YAML = lambda: yaml_catalog(MB20)  # noqa: E731
XLIFF = lambda: xliff_catalog(MB20, "1.2")  # noqa: E731
XLIFF2 = lambda: xliff_catalog(MB20, "2.0")  # noqa: E731
ANDROID = lambda: android_strings(MB20)  # noqa: E731
PROPERTIES = lambda: properties_catalog(MB20)  # noqa: E731
SHORT_HTML = lambda: html_paragraphs(MB20)  # noqa: E731
SHORT_TEXT = lambda: short_paragraphs(MB20)  # noqa: E731

CASES = [
    Case("check-line-800k", "`kapi check --json`: one line of 800,000 words", check_words(800_000)),
    Case("check-line-2m", "`kapi check --json`: one line of 2,000,000 words", check_words(2_000_000)),
    Case("check-lines-800k", "`kapi check --json`: 800,000 words, 10 to a line", check_words(800_000, 10)),
    Case("check-lines-2m", "`kapi check --json`: 2,000,000 words, 10 to a line", check_words(2_000_000, 10)),
    Case("mcp-check-text-4mb", "MCP `check_text` of 4 MB on one line, then `ping`", check_text_mcp(4_000_000)),
    Case("mcp-check-text-8mb", "MCP `check_text` of 8 MB on one line (a call takes at most 8 MiB), then `ping`",
         check_text_mcp(8_000_000)),
    Case("mcp-check-html-7mb", "MCP `check_text` of 7 MB of highlighted HTML listings, then `ping`",
         check_html_mcp(7_000_000)),
    Case("html-highlighted-10mb", "`kapi inspect` (whole, no `--limit`): 10 MB of highlighted HTML listings",
         lambda case_dir: cli_read(case_dir, ["inspect", "--json", write(case_dir, "input.html", highlighted_html(10_000_000))[0]],
                                   10_000_000)),
    Case("docx-tables-8k", "`kapi inspect`: a .docx of 8,000 nested tables",
         read_case("inspect", docx_input(lambda: nested_tables(8000)))),
    Case("docx-tables-33k", "`kapi inspect`: a .docx of 33,000 nested tables",
         read_case("inspect", docx_input(lambda: nested_tables(33000)))),
    Case("docx-inflate-190mb", "`kapi inspect`: a .docx whose part inflates to 190 MB",
         read_case("inspect", docx_input(lambda: docx_paragraphs(190 * 1024 * 1024)))),
    *verbs("docx-inflate-90mb", "a .docx whose part inflates to 90 MB",
           docx_input(lambda: docx_paragraphs(90 * 1024 * 1024))),
    *verbs("json-catalog-50mb", "a 50 MB JSON catalog", text_input("input.json", CATALOG)),
    Case("json-long-key", "`kapi inspect`: 20,000 values under a 1 MB key",
         read_case("inspect", text_input("input.json", LONG_KEY))),
    *verbs("markdown-short-45mb", "45 MB of short Markdown paragraphs", text_input("input.md", SHORT_MD)),
    *verbs("po-catalog-20mb", "a 20 MB PO catalog (one target per message)",
           text_input("input.po", PO), edits=False),
    *verbs("yaml-catalog-20mb", "a 20 MB YAML catalog (groups of short strings)",
           text_input("input.yaml", YAML)),
    *verbs("xliff-catalog-20mb", "a 20 MB XLIFF 1.2 file of trans-units",
           text_input("input.xlf", XLIFF), edits=False),
    *verbs("xliff2-catalog-20mb", "a 20 MB XLIFF 2.0 file of units",
           text_input("input.xlf", XLIFF2), edits=False),
    *verbs("android-strings-20mb", "20 MB of Android `<string>` resources",
           text_input("strings.xml", ANDROID)),
    *verbs("properties-catalog-20mb", "a 20 MB Java properties file",
           text_input("input.properties", PROPERTIES)),
    *verbs("html-short-20mb", "20 MB of short HTML `<p>` paragraphs", text_input("input.html", SHORT_HTML)),
    Case("markdown-one-list-20mb", "`kapi check`: 20 MB of Markdown that is one list",
         read_case("check", text_input("input.md", lambda: one_list(MB20)))),
    Case("markdown-loose-list-20mb", "`kapi check`: 20 MB of Markdown that is one loose list",
         read_case("check", text_input("input.md", lambda: loose_list(MB20)))),
    # A file that is one block quote is cut between its paragraphs, one table between its rows.
    Case("markdown-one-quote-10mb", "`kapi check`: 10 MB of Markdown that is one block quote",
         read_case("check", text_input("input.md", lambda: one_quote(10 * 1024 * 1024)))),
    Case("markdown-one-table-10mb", "`kapi check`: 10 MB of Markdown that is one table",
         read_case("check", text_input("input.md", lambda: one_table(10 * 1024 * 1024)))),
    *verbs("markdown-marked-20mb", "20 MB of short Markdown paragraphs dense with inline markup",
           text_input("input.md", lambda: marked_paragraphs(MB20))),
    # Not yet bounded: a file that defines a link reference is read whole.
    Case("markdown-reference-10mb", "`kapi check`: 10 MB of such paragraphs and one link reference definition",
         read_case("check", text_input("input.md", lambda: marked_paragraphs(10 * 1024 * 1024, True)))),
    # A block of many inline codes: refused at the block's start (more than 10,000 codes).
    Case("html-inline-2mb", "`kapi check`: one 2 MB HTML paragraph of 200,000 bold words",
         read_case("check", text_input("input.html", lambda: inline_paragraph(2_000_000)))),
    Case("markdown-emphasis-2mb", "`kapi check`: one 2 MB Markdown paragraph of 400,000 emphasised words",
         read_case("check", text_input("input.md", lambda: emphasis_paragraph(2_000_000)))),
    Case("json-placeholders-2mb", "`kapi check`: one 2 MB JSON value of 500,000 placeholders",
         read_case("check", text_input("input.json", lambda: placeholder_value(2_000_000)))),
    Case("po-printf-2mb", "`kapi check`: a PO message of 2 MB, 330,000 `%s` in msgid and msgstr",
         read_case("check", text_input("input.po", lambda: printf_message(2_000_000)))),
    Case("android-tags-2mb", "`kapi check`: one 2 MB Android string of 220,000 `<b>` words",
         read_case("check", text_input("strings.xml", lambda: tagged_string(2_000_000)))),
    Case("xliff-inline-2mb", "`kapi check`: one 2 MB XLIFF source of 170,000 `<x/>` codes",
         read_case("check", text_input("input.xlf", lambda: inline_unit(2_000_000)))),
    *verbs("text-short-20mb", "20 MB of short plain-text paragraphs", text_input("input.txt", SHORT_TEXT)),
]


# ---------------------------------------------------------------------------------------

def mb(n):
    return f"{n / 1e6:.1f} MB"


def main():
    if not os.path.exists(KAPI):
        raise SystemExit(f"no kapi at {KAPI}: cargo build --release --bin kapi")
    if not os.path.exists(TIME):
        raise SystemExit(f"{TIME} is needed for wall time and peak memory (apt-get install time)")
    chosen = sys.argv[1:]
    unknown = [c for c in chosen if c not in {case.name for case in CASES}]
    if unknown:
        raise SystemExit(f"unknown case(s) {', '.join(unknown)}; cases: "
                         + ", ".join(case.name for case in CASES))
    rows = []
    for case in CASES:
        if chosen and case.name not in chosen:
            continue
        # Inside the project: `kapi check` checks a file there under its rules.
        case_dir = os.path.join(project(), "cases", case.name)
        os.makedirs(case_dir, exist_ok=True)
        print(f"==> {case.name}", file=sys.stderr)
        r = case.run(case_dir)
        wall = f"{r.wall:.2f} s" if r.wall is not None else "–"
        rss = mb(r.rss_kb * 1024) if r.rss_kb is not None else "–"
        ratio = f"{r.rss_kb * 1024 / r.input_bytes:.1f}x" if r.rss_kb else "–"
        code = "–" if r.code is None else str(r.code)
        rows.append(f"| {case.name} | {case.what} | {mb(r.input_bytes)} | {wall} | {rss} | "
                    f"{ratio} | {code} | {r.note} |")
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    table = "\n".join([
        f"kapi: {KAPI}; load average {load} at the end",
        "",
        "| case | what | input | wall | max RSS | RSS / input | exit | notes |",
        "|---|---|---:|---:|---:|---:|---:|---|",
        *rows,
    ])
    print(table)
    if os.environ.get("HOSTILE_MARKDOWN"):
        with open(os.environ["HOSTILE_MARKDOWN"], "w") as f:
            f.write(table + "\n")


if __name__ == "__main__":
    main()
