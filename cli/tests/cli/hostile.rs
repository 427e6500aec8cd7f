//! Hostile input: files built to cost far more than their size (deep nesting, a zip part that
//! inflates past the input cap, keys that repeat a long key in every value) are refused with
//! an error naming the file, the position and the limit, exit 1 like any unreadable file
//! (`kapi inspect` and `kapi check`). Run on the debug binary, so a reader that recursed
//! would overflow its 8 MB main-thread stack here. (A FIFO named explicitly: `errors.rs`.)

use std::io::{BufRead, Write};

use super::{Kapi, Run};

/// The CRC-32 (IEEE) of the bytes `chunks` give in order, as a zip entry records it.
fn crc32<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> u32 {
    let mut table = [0u32; 256];
    for (n, slot) in table.iter_mut().enumerate() {
        let mut c = n as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xEDB8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
        *slot = c;
    }
    let mut crc = !0u32;
    for chunk in chunks {
        for &b in chunk {
            crc = table[((crc ^ u32::from(b)) & 0xFF) as usize] ^ (crc >> 8);
        }
    }
    !crc
}

/// One zip entry: its name, how it is stored (0 stored, 8 deflated), its compressed bytes,
/// and the CRC and size of what it inflates to.
struct Entry<'a> {
    name: &'a str,
    method: u16,
    data: Vec<u8>,
    crc: u32,
    size: u32,
}

impl<'a> Entry<'a> {
    fn stored(name: &'a str, bytes: &[u8]) -> Self {
        Entry {
            name,
            method: 0,
            data: bytes.to_vec(),
            crc: crc32([bytes]),
            size: bytes.len() as u32,
        }
    }
}

/// A zip archive of `entries` (no compression library: the headers by hand).
fn zip(entries: &[Entry]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for e in entries {
        let offset = out.len() as u32;
        let header = |sig: u32, central: bool| {
            let mut h = Vec::new();
            h.extend(sig.to_le_bytes());
            if central {
                h.extend(20u16.to_le_bytes()); // made by
            }
            h.extend(20u16.to_le_bytes()); // version needed
            h.extend(0u16.to_le_bytes()); // flags
            h.extend(e.method.to_le_bytes());
            h.extend(0u32.to_le_bytes()); // time, date
            h.extend(e.crc.to_le_bytes());
            h.extend((e.data.len() as u32).to_le_bytes());
            h.extend(e.size.to_le_bytes());
            h.extend((e.name.len() as u16).to_le_bytes());
            h.extend(0u16.to_le_bytes()); // extra
            if central {
                h.extend([0u8; 6]); // comment length, disk, internal attributes
                h.extend(0u32.to_le_bytes()); // external attributes
                h.extend(offset.to_le_bytes());
            }
            h.extend(e.name.as_bytes());
            h
        };
        out.extend(header(0x0403_4b50, false));
        out.extend(&e.data);
        central.extend(header(0x0201_4b50, true));
    }
    let at = out.len() as u32;
    out.extend(&central);
    out.extend(0x0605_4b50u32.to_le_bytes());
    out.extend([0u8; 4]);
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((entries.len() as u16).to_le_bytes());
    out.extend((central.len() as u32).to_le_bytes());
    out.extend(at.to_le_bytes());
    out.extend(0u16.to_le_bytes());
    out
}

const HEAD: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<w:document \
    xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\"><w:body>";
const TAIL: &str = "</w:body></w:document>";

fn docx(xml: &str) -> Vec<u8> {
    zip(&[
        Entry::stored("[Content_Types].xml", b"<Types/>"),
        Entry::stored("word/document.xml", xml.as_bytes()),
    ])
}

/// Bits written least significant first, as DEFLATE packs them.
#[derive(Default)]
struct Bits {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl Bits {
    fn put(&mut self, value: u32, len: u32) {
        self.acc |= u64::from(value) << self.n;
        self.n += len;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }
    /// A Huffman code, written most significant bit first.
    fn code(&mut self, code: u32, len: u32) {
        let reversed = code.reverse_bits() >> (32 - len);
        self.put(reversed, len);
    }
    /// A literal byte with the fixed Huffman code.
    fn literal(&mut self, b: u8) {
        if b < 144 {
            self.code(0x30 + u32::from(b), 8);
        } else {
            self.code(0x190 + u32::from(b) - 144, 9);
        }
    }
    fn finish(mut self) -> Vec<u8> {
        if self.n > 0 {
            self.out.push(self.acc as u8);
        }
        self.out
    }
}

/// A DEFLATE stream (one fixed-Huffman block) of `head`, `spaces` spaces and `tail`: the
/// spaces as back-references of 258 bytes each, so 100 MB compress to about 600 KB.
fn deflate_spaces(head: &[u8], spaces: usize, tail: &[u8]) -> Vec<u8> {
    let mut bits = Bits::default();
    bits.put(1, 1); // last block
    bits.put(1, 2); // fixed Huffman
    head.iter().for_each(|&b| bits.literal(b));
    bits.literal(b' ');
    let mut left = spaces - 1;
    while left >= 258 + 3 || left == 258 {
        bits.code(0xC5, 8); // length code 285: 258 bytes
        bits.code(0, 5); // distance code 0: 1 byte back
        left -= 258;
    }
    for _ in 0..left {
        bits.literal(b' ');
    }
    tail.iter().for_each(|&b| bits.literal(b));
    bits.code(0, 7); // end of block (256)
    bits.finish()
}

/// Reads `file` with `inspect --json` and `check`: both exit 1, and the error (a JSON
/// envelope under `--json`) names the file and says `wanted`; returns the check run.
fn refused(kapi: &Kapi, file: &str, wanted: &str) -> Run {
    let inspect = kapi.run(&["inspect", "--json", file]);
    assert_eq!(inspect.code, 1, "{}", inspect.transcript());
    let envelope = inspect.stderr_json();
    assert_eq!(envelope["code"], "error", "{envelope}");
    let error = envelope["error"].as_str().unwrap_or_default();
    assert!(error.starts_with(&format!("{file}:")), "{envelope}");
    assert!(error.contains(wanted), "{envelope}");
    assert!(inspect.stdout.is_empty(), "{}", inspect.transcript());
    let check = kapi.run(&["check", file]);
    assert_eq!(check.code, 1, "{}", check.transcript());
    assert!(check.stderr.contains(wanted), "{}", check.transcript());
    assert!(check.stderr.contains("hint: "), "{}", check.transcript());
    check
}

#[test]
fn docx_tables_nested_past_the_limit_are_refused_with_the_depth_and_position() {
    let kapi = Kapi::empty();
    let nested = |depth: usize| {
        let mut body = String::from(HEAD);
        for i in 0..depth {
            body.push_str(&format!(
                "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>Cell {i}</w:t></w:r></w:p>"
            ));
        }
        body.push_str(&"<w:p/></w:tc></w:tr></w:tbl>".repeat(depth));
        body + TAIL
    };
    // 8,000 nested tables in a 38 KB file took 1.4 GB; 33,000 past 11 GB.
    kapi.write("nested.docx", docx(&nested(8000)));
    let check = refused(&kapi, "nested.docx", "tables nest deeper than 64 levels");
    let line = check.stderr.lines().next().unwrap_or_default();
    // The 65th `<w:tbl>`, on line 2 of `word/document.xml`.
    assert!(line.starts_with("error: nested.docx:2:"), "{line}");
    assert!(
        check.stderr.contains("flatten the nesting"),
        "{}",
        check.transcript()
    );
    kapi.write("deep-ok.docx", docx(&nested(64)));
    let ok = kapi.run(&["inspect", "--json", "deep-ok.docx"]);
    assert_eq!(ok.code, 0, "{}", ok.transcript());
    assert_eq!(ok.json()["total"], 64);
}

#[test]
fn a_docx_part_that_inflates_past_the_input_cap_is_refused() {
    let kapi = Kapi::empty();
    // 101 MB of `document.xml` in a 400 KB file: past the 100 MB a file may hold once
    // inflated (the cap was 200 MB per part, and a 190 MB part took 4.6 GB).
    let spaces = 101 * 1024 * 1024;
    let (head, tail) = (HEAD.as_bytes(), TAIL.as_bytes());
    let space_run = vec![b' '; 1024 * 1024];
    let crc = crc32(
        std::iter::once(head)
            .chain(std::iter::repeat_n(
                space_run.as_slice(),
                spaces / space_run.len(),
            ))
            .chain(std::iter::once(tail)),
    );
    let part = Entry {
        name: "word/document.xml",
        method: 8,
        data: deflate_spaces(head, spaces, tail),
        crc,
        size: (head.len() + spaces + tail.len()) as u32,
    };
    let bomb = zip(&[Entry::stored("[Content_Types].xml", b"<Types/>"), part]);
    assert!(bomb.len() < 1024 * 1024, "{}", bomb.len());
    kapi.write("bomb.docx", bomb);
    let check = refused(
        &kapi,
        "bomb.docx",
        "word/document.xml: the Word document inflates past 100 MB",
    );
    assert!(
        check.stderr.contains("split the file"),
        "{}",
        check.transcript()
    );
}

#[test]
fn deep_json_yaml_and_xml_are_refused_without_overflowing_the_stack() {
    let kapi = Kapi::empty();
    let deep = 100_000;
    kapi.write("deep.json", "[".repeat(deep));
    refused(
        &kapi,
        "deep.json",
        "1:257: objects and arrays nest deeper than 256 levels",
    );
    kapi.write("deep.yaml", "[".repeat(deep));
    refused(
        &kapi,
        "deep.yaml",
        "collections nest deeper than 100 levels",
    );
    // Well-formed: the elements close again.
    let xliff = format!(
        "<xliff version=\"1.2\"><file><body><trans-unit id=\"1\"><source>{}x{}</source>\
         </trans-unit></body></file></xliff>",
        "<g id=\"1\">".repeat(deep),
        "</g>".repeat(deep)
    );
    kapi.write("deep.xlf", xliff);
    // The 252nd `<g>`, 256 elements deep.
    refused(
        &kapi,
        "deep.xlf",
        "1:2571: elements nest deeper than 256 levels",
    );
    let android = format!(
        "<resources><string name=\"s\">{}x{}</string></resources>",
        "<b>".repeat(deep),
        "</b>".repeat(deep)
    );
    kapi.write("strings.xml", android);
    refused(
        &kapi,
        "strings.xml",
        "1:791: elements nest deeper than 256 levels",
    );
    kapi.write("deep.html", "<div>".repeat(deep) + "text");
    refused(
        &kapi,
        "deep.html",
        "1:1281: block elements nest deeper than 256 levels",
    );
}

#[test]
fn a_long_key_repeated_in_every_value_is_refused_before_it_takes_the_memory() {
    let kapi = Kapi::empty();
    // Each of the 400 values' keys repeats the 64 KB key above them: 26 MB of keys from a
    // 66 KB file (a 1 MB key over 20,000 values took 20 GB).
    let values = vec!["\"\""; 400].join(",");
    kapi.write(
        "keys.json",
        format!("{{\"{}\": [{values}]}}", "k".repeat(64 * 1024)),
    );
    refused(&kapi, "keys.json", "the block keys would outgrow the file");
    kapi.write(
        "keys.yaml",
        format!("{}:\n{}", "k".repeat(64 * 1024), "  - x\n".repeat(400)),
    );
    refused(&kapi, "keys.yaml", "the block keys would outgrow the file");
    // The same values under a short key read.
    kapi.write("short.json", format!("{{\"k\": [{values}]}}"));
    let ok = kapi.run(&["inspect", "--json", "short.json"]);
    assert_eq!(ok.code, 0, "{}", ok.transcript());
    assert_eq!(ok.json()["total"], 400);
}

/// A PO file whose comment repeats `msgid ` millions of times holds one message: the reader
/// reserves room for what it has read, never for a count taken ahead of the read, so it
/// reads within a bound that the old up-front reservation (8,000,000 messages' worth,
/// about 2 GB) broke. The bound is the address space `ulimit -v` gives the debug binary.
#[test]
#[cfg(unix)]
fn a_po_comment_full_of_msgid_reserves_nothing_for_it() {
    let kapi = Kapi::empty();
    let mut text = String::from("# ");
    text.push_str(&"msgid ".repeat(8_000_000));
    text.push_str("\nmsgid \"Open\"\nmsgstr \"Ouvrir\"\n");
    kapi.write("big.po", &text);
    let blocks = within(&kapi, 1_200_000, "inspect big.po --limit 1 --json");
    assert_eq!(blocks["total"], 1, "{blocks}");
}

/// `kapi ARGS` (split at spaces) in the test's folder with at most `limit_kb` of address
/// space (`ulimit -v`), outside any project; asserts exit 0 and returns the JSON it printed.
#[cfg(unix)]
fn within(kapi: &Kapi, limit_kb: u32, args: &str) -> serde_json::Value {
    let out = bounded(kapi, limit_kb, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{args}: {stderr}");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// A 24 MB Markdown file of 1.5 million three-word paragraphs: `kapi check` and a page of
/// `kapi inspect` hold the file and one block at a time, and `kapi apply` of one edit the
/// blocks it edits, not a document of 1.5 million blocks (about 300 bytes each, fifteen
/// times the file). The bound is the address space `ulimit -v` gives the debug binary,
/// which the whole document overran.
#[test]
#[cfg(unix)]
fn a_file_of_millions_of_short_paragraphs_is_checked_a_block_at_a_time() {
    let kapi = Kapi::empty();
    kapi.write("short.md", "Open the window.\n\n".repeat(1_400_000));
    let page = kapi.run(&["inspect", "--json", "--limit", "2", "short.md"]);
    let second = &page.json()["blocks"][1];
    let change = serde_json::json!({"schema": "kapi.change/v1", "operations": [{
        "op": "replace_text", "at": second["ref"], "if_match": second["rev"],
        "find": "window", "replace": "door"}]});
    kapi.write("change.json", change.to_string());
    for args in [
        "check --json short.md",
        "inspect --json --limit 2 short.md",
        "apply --json change.json",
    ] {
        let report = within(&kapi, LIMIT_KB, args);
        if args.starts_with("apply") {
            assert_eq!(report["status"], "applied", "{report}");
            continue;
        }
        let blocks = if args.starts_with("check") {
            &report["target"]["blocks"]
        } else {
            &report["total"]
        };
        assert_eq!(blocks, 1_400_000, "{args}");
    }
    let text = std::fs::read_to_string(kapi.path().join("short.md")).expect("read back");
    assert!(text.starts_with("Open the window.\n\nOpen the door.\n\nOpen the window."));
    assert_eq!(text.len(), 18 * 1_400_000 - 2);
}

/// A 36 MB Markdown file that is one list of 1.9 million items: the reader cuts it between
/// items (the list is tight), so pulldown-cmark's tree is a piece's, not the list's (which
/// alone grew to a 300 MB allocation, past the bound).
#[test]
#[cfg(unix)]
fn a_file_that_is_one_long_list_is_read_a_piece_at_a_time() {
    let kapi = Kapi::empty();
    kapi.write("list.md", "- Open the window.\n".repeat(1_900_000));
    for args in ["check --json list.md", "inspect --json --limit 2 list.md"] {
        assert_eq!(blocks_read(&kapi, LIMIT_KB, args), 1_900_000, "{args}");
    }
}

/// What `kapi ARGS` (split at spaces) gives in the test's folder with at most `limit_kb` of
/// address space (`ulimit -v`), outside any project.
#[cfg(unix)]
fn bounded(kapi: &Kapi, limit_kb: u32, args: &str) -> std::process::Output {
    std::process::Command::new("sh")
        .args(["-c", &format!("ulimit -v {limit_kb} && exec \"$0\" {args}")])
        .arg(std::path::Path::new(env!("CARGO_BIN_EXE_kapi")))
        .current_dir(kapi.path())
        .env("KAPI_NO_PROJECT", "1")
        .output()
        .expect("sh runs")
}

/// How many blocks `kapi check --json` or `kapi inspect --json` ([`within`] `limit_kb`) read.
#[cfg(unix)]
fn blocks_read(kapi: &Kapi, limit_kb: u32, args: &str) -> serde_json::Value {
    let report = within(kapi, limit_kb, args);
    if args.starts_with("check") {
        report["target"]["blocks"].clone()
    } else {
        report["total"].clone()
    }
}

/// About 3.9 MB of Markdown paragraphs dense with inline markup, and how many there are.
#[cfg(unix)]
fn dense_markdown() -> (String, usize) {
    let paragraph = "Save *the* **file** `now` [x](y) *a* *b* *c*.\n\n";
    let count = 3_900_000 / paragraph.len();
    (paragraph.repeat(count), count)
}

/// A 3.9 MB Markdown file of paragraphs dense with inline markup (emphasis, strong, code
/// spans, links: pulldown-cmark makes a node of each marker, about 40 bytes of tree per byte
/// of text): it is read in windows of a few hundred KB, so the tree is a window's. Read
/// whole, or planned in 3 MB windows, the tree alone ran past the bound.
#[test]
#[cfg(unix)]
fn a_file_dense_with_inline_markup_is_read_in_small_windows() {
    let kapi = Kapi::empty();
    let (text, count) = dense_markdown();
    kapi.write("dense.md", text);
    for args in ["check --json dense.md", "inspect --json --limit 2 dense.md"] {
        assert_eq!(blocks_read(&kapi, 250_000, args), count, "{args}");
    }
}

/// The same file with a link reference definition at its end, used by its first paragraph:
/// a definition reaches across the file, so such a file was read whole (its tree alone over
/// 200 MB). It is read in pieces, the plan gathering the definitions, and the first
/// paragraph's reference, three MB before its definition, is still a link to it.
#[test]
#[cfg(unix)]
fn a_file_that_defines_link_references_is_still_read_in_small_windows() {
    let kapi = Kapi::empty();
    let (dense, count) = dense_markdown();
    let text = format!("See [the guide][G].\n\n{dense}[g]: https://example.com/guide \"Guide\"\n");
    kapi.write("linked.md", text);
    assert_eq!(
        blocks_read(&kapi, 250_000, "check --json linked.md"),
        count + 1
    );
    let page = within(&kapi, 250_000, "inspect --json --limit 1 linked.md");
    assert_eq!(page["total"], count + 1);
    let link = &page["blocks"][0]["codes"][0];
    assert_eq!(link["class"], "link", "{page}");
    assert_eq!(link["attrs"]["href"], "https://example.com/guide", "{page}");
    assert_eq!(link["attrs"]["title"], "Guide", "{page}");
}

/// The address space the short-paragraph test allows, in KB.
const LIMIT_KB: u32 = 400_000;

/// `kapi ARGS` (split at spaces) as [`within`] runs it: exit 1, and stderr says `wanted` and
/// gives the hint.
#[cfg(unix)]
fn refused_within(kapi: &Kapi, limit_kb: u32, args: &str, wanted: &str) {
    let out = bounded(kapi, limit_kb, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args}: {stderr}");
    assert!(stderr.contains(wanted), "{args}: {stderr}");
    assert!(
        stderr.contains("kapi reads up to 10000 inline codes"),
        "{args}: {stderr}"
    );
}

/// What a block past the code limit is refused with.
const DENSE: &str = "the block here holds more than 10000 inline codes";

/// One block of hundreds of thousands of inline codes, in every format that makes codes,
/// is refused at the block's start before its codes take the memory: each code cost a
/// reader a few hundred bytes, so 2 MB of them held 100 to 280 times the file (pulldown-
/// cmark's tree and events, the HTML reader's tokens, an XML reader's inline elements).
/// The bound is the address space `ulimit -v` gives the debug binary, which every one of
/// these ran past before. `kapi check` and a page of `kapi inspect` alike.
#[test]
#[cfg(unix)]
fn a_block_dense_with_codes_is_refused_at_its_start_within_a_bound() {
    let kapi = Kapi::empty();
    let n = 400_000;
    let printf = "%s ".repeat(n);
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "one.json",
            format!("{{\"title\": \"Hi\",\n \"k\": \"{}\"}}\n", "{a} ".repeat(n)),
            "one.json:2:7: ",
        ),
        (
            "select.json",
            format!(
                "{{\"k\": \"{{n, select, {} other {{y}}}}\"}}\n",
                (0..n / 4)
                    .map(|i| format!("a{i} {{x}}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            "select.json:1:7: ",
        ),
        (
            "one.yml",
            format!("en:\n  title: Hi\n  k: \"{}\"\n", "%{a} ".repeat(n)),
            "one.yml:3:3: ",
        ),
        (
            "one.properties",
            format!("title=Hi\nk={}\n", "{0} ".repeat(n)),
            "one.properties:2:1: ",
        ),
        (
            "one.po",
            format!(
                "msgid \"\"\nmsgstr \"\"\n\"Content-Type: text/plain; charset=UTF-8\\n\"\n\n\
                 #, c-format\nmsgid \"{printf}\"\nmsgstr \"{printf}\"\n"
            ),
            "one.po:5:1: ",
        ),
        (
            "strings.xml",
            format!(
                "<resources>\n<string name=\"t\">Hi</string>\n<string name=\"k\">{}</string>\n</resources>\n",
                "<b>w</b> ".repeat(n / 2)
            ),
            "strings.xml:3:1: ",
        ),
        (
            "one.xlf",
            format!(
                "<xliff version=\"1.2\"><file source-language=\"en\" datatype=\"plaintext\" \
                 original=\"a\"><body><trans-unit id=\"1\"><source>{}</source></trans-unit>\
                 </body></file></xliff>\n",
                "<x id=\"1\"/> ".repeat(n / 2)
            ),
            "one.xlf:1:89: ",
        ),
        (
            "one.html",
            format!("<p>Hi</p>\n<p>{}</p>\n", "<b>w</b> ".repeat(n / 2)),
            "one.html:2:4: ",
        ),
        // A file read in pieces (a line stretches the plan's window), one read whole with a
        // long line, and one read whole over many lines.
        (
            "long.md",
            format!("# Hi\n\n{}\n", "*w* ".repeat(n)),
            "long.md:3:1: ",
        ),
        (
            "short.md",
            format!("# Hi\n\n{}\n", "*w* ".repeat(n / 8)),
            "short.md:3:1: ",
        ),
        (
            "lines.md",
            format!("# Hi\n\n{}\n", "*w* `c` [l](u)\n".repeat(n / 16)),
            "lines.md:3:1: ",
        ),
    ];
    for (file, text, at) in &cases {
        kapi.write(file, text);
        for verb in ["check", "inspect --json --limit 2"] {
            refused_within(
                &kapi,
                250_000,
                &format!("{verb} {file}"),
                &format!("{at}{DENSE}"),
            );
        }
    }
}

/// The limit is on a block's codes, not a file's: a block of exactly 10,000 reads, one more
/// is refused, and a file of many blocks under the limit reads whatever its codes add up to.
#[test]
fn the_code_limit_is_per_block_and_exact() {
    let kapi = Kapi::empty();
    let at_limit = "{a} ".repeat(10_000);
    kapi.write(
        "ten.json",
        format!("{{\"a\": \"{at_limit}\", \"b\": \"{at_limit}\"}}"),
    );
    let blocks = kapi.run(&["inspect", "--json", "ten.json"]);
    assert_eq!(blocks.code, 0, "{}", blocks.transcript());
    assert_eq!(
        blocks.json()["blocks"][1]["codes"].as_array().map(Vec::len),
        Some(10_000)
    );
    kapi.write("over.json", format!("{{\"a\": \"{at_limit}{{b}}\"}}"));
    let over = kapi.run(&["inspect", "--json", "over.json"]);
    assert_eq!(over.code, 1, "{}", over.transcript());
    assert!(
        over.stderr.contains(&format!("over.json:1:7: {DENSE}")),
        "{}",
        over.transcript()
    );
    // Markdown: an emphasis is two codes (its open and its close).
    kapi.write("ten.md", format!("{}\n", "*w* ".repeat(5_000)));
    let read = kapi.run(&["check", "ten.md"]);
    assert_ne!(read.code, 1, "{}", read.transcript());
    kapi.write("over.md", format!("{}`c`\n", "*w* ".repeat(5_000)));
    let over = kapi.run(&["check", "over.md"]);
    assert_eq!(over.code, 1, "{}", over.transcript());
    assert!(
        over.stderr.contains(&format!("over.md:1:1: {DENSE}")),
        "{}",
        over.transcript()
    );
    // What makes no code is not counted: a long line of tags in a fence (a long line is
    // counted in chunks, and one that starts inside the fence reads as prose), a task
    // marker, the tags inside a `translate="no"` element (one code whole), markup with no
    // prose around it, and ICU switches nested in switches (each counted once).
    let fenced = format!("# Tags\n\n```html\n{}\n```\n", "<b>".repeat(30_000));
    let select = format!(
        "{{\"k\": \"{{a, select, x {{{{b, select, y {{{}}} other {{q}}}}}} other {{q}}}}\"}}",
        "{p}".repeat(5_000)
    );
    let readable = [
        ("fenced.md", fenced),
        ("task.md", format!("- [ ] {}\n", "`a` ".repeat(10_000))),
        (
            "no.html",
            format!(
                "<p>Hi <span translate=\"no\">{}</span></p>\n",
                "<b>x</b>".repeat(10_001)
            ),
        ),
        (
            "svg.html",
            format!("<div><svg>{}</svg></div>\n", "<path/>\n".repeat(15_001)),
        ),
        ("select.json", select),
    ];
    for (file, text) in readable {
        kapi.write(file, text);
        let read = kapi.run(&["inspect", "--json", "--limit", "1", file]);
        assert_eq!(read.code, 0, "{file}: {}", read.transcript());
    }
    // And what makes codes past the limit is refused in each of those shapes.
    kapi.write(
        "over.html",
        format!("<p>{}<br></p>\n", "<b>w</b> ".repeat(5_000)),
    );
    kapi.write(
        "branches.json",
        format!(
            "{{\"k\": \"{{a, select, {} other {{q}}}}\"}}",
            (0..10_001)
                .map(|i| format!("v{i} {{yes no}}"))
                .collect::<Vec<_>>()
                .join(" ")
        ),
    );
    for file in ["over.html", "branches.json"] {
        let over = kapi.run(&["inspect", "--json", file]);
        assert_eq!(over.code, 1, "{file}: {}", over.transcript());
        assert!(over.stderr.contains(DENSE), "{file}: {}", over.transcript());
    }
}

/// About 10 MB of HTML like the Python docs' highlighted listings (a code per 12 bytes), in
/// paragraphs and `<pre>` blocks, and how many blocks it holds.
#[cfg(unix)]
fn highlighted_html() -> (String, usize) {
    let listing: String = (0..200)
        .map(|i| format!("<span class=\"n\">x{i}</span><span class=\"o\">=</span> "))
        .collect();
    let section = format!("<p>Call <code>f</code> as shown.</p>\n<pre>{listing}</pre>\n");
    let count = 10_000_000 / section.len();
    let body = section.repeat(count);
    (format!("<html><body>\n{body}</body></html>\n"), 2 * count)
}

/// `kapi inspect` of a whole document (no `--limit`) prints each record as it is made: a
/// document's blocks and records held together came to 20 times its file (196 MB for 9.8 MB
/// of the Python docs' `re` page); read twice instead, it costs the file and a block. The text
/// view, `--json` and `--jsonl` alike, within the bound `ulimit -v` gives the debug binary.
#[test]
#[cfg(unix)]
fn a_whole_document_is_inspected_a_record_at_a_time() {
    let kapi = Kapi::empty();
    let (html, count) = highlighted_html();
    kapi.write("page.html", html);
    let blocks = within(&kapi, 250_000, "inspect --json page.html");
    assert_eq!(blocks["total"], count, "{}", blocks["total"]);
    let records = blocks["blocks"].as_array().expect("blocks");
    assert_eq!(records.len(), count);
    // A record lists a code pair once: 400 spans, 800 codes.
    assert_eq!(records[1]["codes"].as_array().map(Vec::len), Some(400));
    assert_eq!(blocks["next"], serde_json::Value::Null);
    let lines = bounded(&kapi, 250_000, "inspect --jsonl page.html");
    assert_eq!(lines.status.code(), Some(0));
    assert_eq!(lines.stdout.iter().filter(|&&b| b == b'\n').count(), count);
    // The text view: its first line, then each block's (a listing's "read-only" under it).
    let view = bounded(&kapi, 250_000, "inspect page.html");
    assert_eq!(view.status.code(), Some(0));
    let view = String::from_utf8_lossy(&view.stdout);
    assert!(view.starts_with(&format!("page.html · html · {count} blocks\n")));
    assert_eq!(view.lines().count(), 1 + count / 2 * 3);
}

/// A 16 MB Markdown file that is one loose list (a blank line between items) of items dense
/// with inline markup: cut between items where both parts keep a blank line between two of
/// their items (so both stay loose, as the whole list is), it is read in pieces. Read whole,
/// pulldown-cmark's tree of the list ran past the bound (17 times the file).
#[test]
#[cfg(unix)]
fn a_file_that_is_one_loose_list_is_read_a_piece_at_a_time() {
    let item = "- Save *the* file and [open](u) `it`.\n\n";
    let count = 16_000_000 / item.len();
    read_in_pieces_within_a_bound("loose.md", &item.repeat(count), count, "list-item");
}

/// `text` in `file` reads as `count` blocks, the first of `role`, in `kapi check` and a page
/// of `kapi inspect`, within the bound `ulimit -v` gives the debug binary.
#[cfg(unix)]
fn read_in_pieces_within_a_bound(file: &str, text: &str, count: usize, role: &str) {
    let kapi = Kapi::empty();
    kapi.write(file, text);
    for args in [
        format!("check --json {file}"),
        format!("inspect --json --limit 2 {file}"),
    ] {
        assert_eq!(blocks_read(&kapi, 250_000, &args), count, "{args}");
    }
    let page = within(&kapi, 250_000, &format!("inspect --json --limit 1 {file}"));
    assert_eq!(page["blocks"][0]["role"], role, "{page}");
}

/// MCP `check_text` (and `term-check`, `voice_rewrite`) of 7 MB of HTML like the Python docs'
/// highlighted listings reads the text a block at a time, as `kapi check` reads a file:
/// whole, its document held 154 MB, for each of the three calls. Driven through `kapi mcp` on
/// stdin, its report counts every block, and the server's peak resident memory (`VmHWM`, read
/// while it still runs) stays under 160 MB: about 70 MB today. The measure is resident memory,
/// not `ulimit -v` as for one command: three calls on three threads make mimalloc reserve
/// address space by the 64 MB, so the address space a run needs (206–227 MB here) hung on
/// thread timing, and a CI machine's run overran 250 MB with 70 MB in use. `ulimit -v` stays,
/// higher, as the backstop that stops a runaway read.
#[test]
#[cfg(target_os = "linux")]
fn check_text_over_mcp_reads_a_block_at_a_time() {
    let kapi = Kapi::empty();
    let (html, count) = highlighted_html();
    let text: String = html.chars().take(7_000_000).collect();
    let requests = [
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
            "name": "check_text", "arguments": {"text": text, "format": "html"}}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "term-check", "arguments": {"text": text, "format": "html"}}}),
        serde_json::json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "voice_rewrite", "arguments": {"text": text, "format": "html"}}}),
    ];
    // Stdin stays open until the three answers are read: the server's peak memory is read
    // while it still runs.
    let mut server = std::process::Command::new("sh")
        .args(["-c", "ulimit -v 1000000 && exec \"$0\" mcp --all"])
        .arg(std::path::Path::new(env!("CARGO_BIN_EXE_kapi")))
        .current_dir(kapi.path())
        .env("KAPI_NO_PROJECT", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("sh runs");
    let mut stdin = server.stdin.take().expect("stdin");
    for request in &requests {
        writeln!(stdin, "{request}").expect("a request is written");
    }
    let stdout = std::io::BufReader::new(server.stdout.take().expect("stdout"));
    let mut answers: Vec<serde_json::Value> = Vec::new();
    for line in stdout.lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(&line.expect("a line")) else {
            continue;
        };
        answers.push(message);
        if (1..=3).all(|id| answers.iter().any(|m| m["id"] == id)) {
            break;
        }
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.id()))
        .expect("the server's status");
    let peak_kb: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in kB");
    drop(stdin);
    assert_eq!(server.wait().expect("the server ends").code(), Some(0));
    assert!(peak_kb < 160_000, "peak resident memory {peak_kb} kB");
    let answer = |id: u64| answers.iter().find(|m| m["id"] == id).expect("an answer");
    // term-check and voice_rewrite read the text the same way.
    for (id, schema) in [(2, "kapi.term-check/v1"), (3, "kapi.voice-rewrite/v1")] {
        let report = &answer(id)["result"]["structuredContent"];
        assert_eq!(report["schema"], schema, "{id}");
    }
    let answer = answer(1);
    let report = &answer["result"]["structuredContent"];
    assert_eq!(report["schema"], "kapi.check/v1", "{answer:.300}");
    // The text is cut inside a listing: the blocks before it, and the one cut.
    let blocks = report["target"]["blocks"].as_u64().unwrap_or(0);
    assert!(blocks > count as u64 * 6 / 10 / 2, "{blocks} of {count}");
}

/// `kapi check --diff-against` compares each block's revisions now and at the commit, read
/// a block at a time: both versions of 10 MB of highlighted HTML were held whole (334 MB).
/// Within the bound `ulimit -v` gives the debug binary; one paragraph changed is checked.
#[test]
#[cfg(unix)]
fn a_diff_against_a_commit_reads_both_versions_a_block_at_a_time() {
    let kapi = Kapi::empty();
    let (html, _) = highlighted_html();
    kapi.write("page.html", &html);
    let git = |args: &[&str]| super::check::git(&kapi, args);
    git(&["init", "-q"]);
    git(&["add", "page.html"]);
    git(&["commit", "-qm", "page"]);
    kapi.write("page.html", html.replacen("Call", "Calls", 1));
    let report = within(&kapi, 250_000, "check --diff-against HEAD --json page.html");
    assert_eq!(report["target"]["blocks"], 1, "{}", report["target"]);
}

/// A 12 MB Markdown file that is one block quote of short paragraphs: cut before a paragraph
/// after one of the quote's blank lines (each piece a quote of its own, its paragraphs read
/// as the one quote's), it is read in pieces. Read whole, pulldown-cmark's tree of the quote
/// ran past the bound (13 times the file).
#[test]
#[cfg(unix)]
fn a_file_that_is_one_block_quote_is_read_a_piece_at_a_time() {
    let paragraph = "> Open the window and *save* the file now.\n>\n";
    let count = 12_000_000 / paragraph.len();
    read_in_pieces_within_a_bound("quote.md", &paragraph.repeat(count), count, "quote");
}

/// A 12 MB Markdown file that is one table of rows dense with inline markup: cut before a
/// row (each piece parsed after the table's header and delimiter lines, whose cells are
/// left out), it is read in pieces. Read whole, pulldown-cmark's tree of the table ran past
/// the bound (17 times the file).
#[test]
#[cfg(unix)]
fn a_file_that_is_one_table_is_read_a_piece_at_a_time() {
    let head = "| Step | What | Why |\n|------|:----:|-----|\n";
    let row = "| Save *the* file | [open](u) `it` | now |\n";
    let rows = 12_000_000 / row.len();
    let text = format!("{head}{}", row.repeat(rows));
    read_in_pieces_within_a_bound("table.md", &text, 3 * (rows + 1), "table-cell");
}

/// MDX files of JSX tags and `{` expressions that never close, on lines of their own (one
/// paragraph of 60,000 lines), and of 300,000 closed tags over several lines: the scan that
/// reads a tag or an expression over several lines as one (`markdown::mdx`) stops at a blank
/// line, at 64 lines, and within a budget of reads per byte of the file, so `kapi check`
/// reads each in bounded memory and ends.
#[test]
#[cfg(unix)]
fn an_mdx_file_of_tags_that_never_close_is_read_within_bounds() {
    let kapi = Kapi::empty();
    let text = "<Tabs\n  items={[\n  \"a\",\n".repeat(20_000) + "\nText.\n";
    kapi.write("never.mdx", &text);
    let report = within(&kapi, LIMIT_KB, "check --json never.mdx");
    assert!(
        report["target"]["blocks"].as_u64().unwrap() >= 1,
        "{report}"
    );
    kapi.write("closed.mdx", "<Tabs\n  a=\"1\"\n/>\n\n".repeat(300_000));
    let report = within(&kapi, LIMIT_KB, "check --json closed.mdx");
    assert_eq!(report["summary"]["findings"], 0, "{report}");
    let page = within(&kapi, LIMIT_KB, "inspect --json --limit 1 closed.mdx");
    assert_eq!(page["total"], 300_000, "each tag one HTML block");
    assert_eq!(page["blocks"][0]["role"], "html", "{page}");
}

/// reStructuredText built to cost: list items nested past the depth limit are refused at the
/// item that goes past it, with the hint; 40,000 unclosed start strings in one paragraph, a
/// grid table of 1,000 columns and 1,000 rows, and a simple table of 5,000 columns are read in bounded
/// memory and end (the scanner remembers where an end string was looked for in vain, and a
/// table's columns are found in one walk of each line).
#[test]
#[cfg(unix)]
fn an_rst_file_built_to_cost_is_read_within_bounds_or_refused() {
    let kapi = Kapi::empty();
    let deep: String = (0..300)
        .map(|i| format!("{}- x\n\n", "  ".repeat(i)))
        .collect();
    kapi.write("deep.rst", &deep);
    let out = bounded(&kapi, LIMIT_KB, "check --json deep.rst");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    // The 257th item's line, and the fix.
    assert!(
        stderr.contains("deep.rst:514:1: indented blocks nest deeper than 256"),
        "{stderr}"
    );
    assert!(
        stderr.contains("flatten the nesting at that position"),
        "{stderr}"
    );
    kapi.write("starts.rst", "*a `b |c :d ``e _f ".repeat(40_000) + "\n");
    let report = within(&kapi, LIMIT_KB, "check --json starts.rst");
    assert_eq!(report["target"]["blocks"], 1, "{report}");
    let border = format!("{}+\n", "+--".repeat(1_000));
    let row = format!("{}|\n", "|ab".repeat(1_000));
    kapi.write(
        "grid.rst",
        format!("{border}{}", format!("{row}{border}").repeat(1_000)),
    );
    let page = within(&kapi, LIMIT_KB, "inspect --json --limit 1 grid.rst");
    assert_eq!(page["total"], 1_000_000, "every cell a block");
    let simple = format!("{}\n", "== ".repeat(5_000));
    let words = format!("{}\n", "ab ".repeat(5_000));
    kapi.write(
        "simple.rst",
        format!("{simple}{}{simple}", words.repeat(100)),
    );
    let page = within(&kapi, LIMIT_KB, "inspect --json --limit 1 simple.rst");
    assert_eq!(page["total"], 500_000, "every cell a block");
}

/// AsciiDoc built to cost: delimited blocks nested past the limit are refused at the block
/// that goes past it, with the hint; 40,000 unclosed formatting marks, macros and cross
/// references in one paragraph, a table of 500,000 cells and a list of 100,000 items, each
/// attaching a block with `+`, are read in bounded memory and end.
#[test]
#[cfg(unix)]
fn an_asciidoc_file_built_to_cost_is_read_within_bounds_or_refused() {
    let kapi = Kapi::empty();
    let open: String = (4..80).map(|n| "=".repeat(n) + "\n").collect();
    let close: String = (4..80).rev().map(|n| "=".repeat(n) + "\n").collect();
    kapi.write("deep.adoc", format!("{open}text\n{close}"));
    let out = bounded(&kapi, LIMIT_KB, "check --json deep.adoc");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("blocks nest deeper than 64"), "{stderr}");
    assert!(
        stderr.contains("flatten the nesting at that position"),
        "{stderr}"
    );
    kapi.write(
        "marks.adoc",
        "*a _b `c <<d link:e[ {f ".repeat(40_000) + "\n",
    );
    let report = within(&kapi, LIMIT_KB, "check --json marks.adoc");
    assert_eq!(report["target"]["blocks"], 1, "{report}");
    kapi.write(
        "table.adoc",
        format!("|===\n{}|===\n", "| a | b\n".repeat(250_000)),
    );
    let page = within(&kapi, LIMIT_KB, "inspect --json --limit 1 table.adoc");
    assert_eq!(page["total"], 500_000, "every cell a block");
    kapi.write("list.adoc", "* item\n+\nattached\n".repeat(100_000));
    let page = within(&kapi, LIMIT_KB, "inspect --json --limit 1 list.adoc");
    assert_eq!(
        page["total"], 200_000,
        "each item and its attached paragraph"
    );
}
