use super::langs::*;
use super::*;
use crate::model::Run;

fn read(lang: &Lang, text: &str) -> Parsed {
    let parsed = lang.read(text.as_bytes()).expect("reads");
    let written = lang.write(&parsed).expect("writes");
    assert_eq!(String::from_utf8_lossy(&written), text, "a no-op write");
    parsed
}

/// `key role: prose` per block, codes shown as `[data]`.
fn blocks(parsed: &Parsed) -> Vec<String> {
    parsed
        .document
        .blocks
        .iter()
        .map(|b| {
            let prose: String = b
                .source
                .runs
                .iter()
                .map(|r| match r {
                    Run::Text { text, .. } => text.clone(),
                    Run::Code(c) => format!("[{}]", c.data),
                    Run::Switch(_) => String::new(),
                })
                .collect();
            format!("{} {}: {prose}", b.key, b.role.as_str())
        })
        .collect()
}

#[test]
fn rust_comments_are_keyed_by_what_they_document() {
    let text = r#"//! The crate's doc.
//! Second line.

use std::io;

/// Parses `input`.
///
/// ```
/// let x = parse("a");
/// ```
#[inline]
pub fn parse(input: &str) -> u32 {
    // Count the words
    // in the input.
    let s = "// not a comment";
    // let y = compute(s);
    input.len() as u32 // trailing note
}

impl Reader {
    /** Reads a file. */
    fn read(&self) {}

    // A loose remark.

    fn other() {}
}
"#;
    let parsed = read(&RUST, text);
    assert_eq!(
        blocks(&parsed),
        [
            "doc paragraph: The crate's doc. Second line.",
            "parse/doc paragraph: Parses [`input`].\n\n[```\nlet x = parse(\"a\");\n```]",
            "parse/comment paragraph: Count the words in the input.",
            "parse/comment#2 code: let y = compute(s);",
            "parse/comment#3 paragraph: trailing note",
            "Reader.read/doc paragraph: Reads a file.",
            "Reader/comment paragraph: A loose remark.",
        ]
    );
    // A finding's offset is the file's: the prose points at its bytes.
    let block = &parsed.document.blocks[2];
    let Run::Text { text: t, src } = &block.source.runs[0] else {
        panic!("text first")
    };
    let at = src.expect("a verbatim slice");
    assert_eq!(&text[at..at + t.len()], "Count the words");
}

#[test]
fn python_docstrings_and_comments() {
    let text = r##""""The module.

It does things.
"""
# Copyright notice here.

class Reader:
    """Reads files.

    >>> Reader().read()
    'x'
    """

    # noqa: E501
    def read(self):
        '''Return the text.'''
        # x = compute(1)
        return "# not a comment"
"##;
    let parsed = read(&PYTHON, text);
    assert_eq!(
        blocks(&parsed),
        [
            "doc paragraph: The module.\n\nIt does things.",
            "comment paragraph: Copyright notice here.",
            "Reader/doc paragraph: Reads files.\n\n[>>> Reader().read()\n'x']",
            "Reader.read/comment code: noqa: E501",
            "Reader.read/doc paragraph: Return the text.",
            "Reader.read/comment#2 code: x = compute(1)",
        ]
    );
}

#[test]
fn a_title_underline_of_tildes_is_no_fence() {
    // requests' module docstrings: the `~` underline used to open a fence that never
    // closed, so the module's prose below it was one code, never checked.
    let text = "\"\"\"\nrequests.auth\n~~~~~~~~~~~~~\n\nThis module holds the handlers.\n\"\"\"\n";
    let parsed = read(&PYTHON, text);
    assert_eq!(
        blocks(&parsed),
        ["doc paragraph: requests.auth [~~~~~~~~~~~~~]\n\nThis module holds the handlers."]
    );
    // A fence of tildes shorter than the line above it is still a fence.
    let text = "/// Example:\n/// ~~~\n/// let x = 1;\n/// ~~~\nfn f() {}\n";
    let parsed = read(&RUST, text);
    assert_eq!(
        blocks(&parsed),
        ["f/doc paragraph: Example: [~~~\nlet x = 1;\n~~~]"]
    );
}

#[test]
fn ide_fold_markers_are_directives() {
    // JPype's Java: NetBeans and IntelliJ fold regions, like C#'s `#region`.
    let text = "class A {\n  //<editor-fold desc=\"members\" defaultstate=\"collapsed\">\n  int x;\n  //</editor-fold>\n}\n";
    let parsed = read(&JAVA, text);
    assert_eq!(
        blocks(&parsed),
        [
            "A/comment code: <editor-fold desc=\"members\" defaultstate=\"collapsed\">",
            "A/comment#2 code: </editor-fold>",
        ]
    );
}

#[test]
fn every_language_reads_its_comments() {
    let cases: &[(&Lang, &str, &str)] = &[
        (
            &JAVASCRIPT,
            "/** Adds two numbers. */\nfunction add(a, b) { return a + b; }\n",
            "add/doc paragraph: Adds two numbers.",
        ),
        (
            &TYPESCRIPT,
            "// Says hello.\nexport function hi(): void {}\n",
            "hi/comment paragraph: Says hello.",
        ),
        (
            &TSX,
            "// The app.\nconst App = () => <div>hi</div>;\n",
            "App/comment paragraph: The app.",
        ),
        (
            &GO,
            "package main\n\n// Run starts the server.\nfunc Run() {}\n",
            "Run/doc paragraph: Run starts the server.",
        ),
        (
            &JAVA,
            "class A {\n  /** Returns the <b>size</b>. */\n  int size() { return 0; }\n}\n",
            "A.size/doc paragraph: Returns the [<b>]size[</b>].",
        ),
        (
            &C,
            "/* Frees the buffer. */\nvoid release(char *buf) {}\n",
            "release/comment paragraph: Frees the buffer.",
        ),
        (
            &CPP,
            "// Holds a value.\nclass Box {};\n",
            "Box/comment paragraph: Holds a value.",
        ),
        (
            &CSHARP,
            "class A {\n  /// <summary>Reads it.</summary>\n  void Read() {}\n}\n",
            "A.Read/doc paragraph: [<summary>]Reads it.[</summary>]",
        ),
        (
            &KOTLIN,
            "// Greets.\nfun greet() {}\n",
            "greet/comment paragraph: Greets.",
        ),
        (
            &SWIFT,
            "/// Greets.\nfunc greet() {}\n",
            "greet/doc paragraph: Greets.",
        ),
        (
            &RUBY,
            "# Greets the user.\ndef greet\nend\n",
            "greet/doc paragraph: Greets the user.",
        ),
        (
            &SHELL,
            "#!/bin/sh\n# Installs the tool.\necho hi\n",
            "comment paragraph: Installs the tool.",
        ),
        (
            &TOML,
            "# The package name.\nname = \"kapi\"\n",
            "name/doc paragraph: The package name.",
        ),
    ];
    for (lang, text, want) in cases {
        let parsed = read(lang, text);
        assert_eq!(blocks(&parsed), [*want], "{}", lang.info.id);
    }
}

#[test]
fn an_edited_comment_is_written_in_its_own_style() {
    let text = "fn main() {\n    /// Old words.\n    /// More.\n    let x = 1;\n    /* one */\n}\n";
    let mut parsed = read(&RUST, text);
    let long = "A much longer sentence that will need to wrap because it runs past the width the comment used before.";
    parsed.document.blocks[0].source.runs = vec![Run::text(long)];
    parsed.document.blocks[1].source.runs = vec![Run::text("two")];
    let out = String::from_utf8(RUST.write(&parsed).expect("writes")).expect("utf-8");
    assert_eq!(
        out,
        "fn main() {\n    /// A much longer sentence that will need to wrap because it runs past the\n    /// width the comment used before.\n    let x = 1;\n    /* two */\n}\n"
    );
    let reread = RUST.read(out.as_bytes()).expect("reads again");
    assert_eq!(syntax_errors(&parse(&RUST, &out).expect("parses")), 0);
    assert_eq!(reread.document.blocks.len(), 2);
}

#[test]
fn an_edited_block_comment_without_stars_keeps_its_lines_indentation() {
    // expo's Swift doc comments: body lines one space past the opener, no `*`; an edit
    // used to write them four spaces past it.
    let text = "protocol P {\n  /**\n   Lends the object.\n   */\n  func f()\n}\n";
    let mut parsed = read(&SWIFT, text);
    let long = "Lends the JavaScript object the events should be emitted to for the duration of the body, on the JS thread.";
    parsed.document.blocks[0].source.runs = vec![Run::text(long)];
    let out = String::from_utf8(SWIFT.write(&parsed).expect("writes")).expect("utf-8");
    assert_eq!(
        out,
        "protocol P {\n  /**\n   Lends the JavaScript object the events should be emitted to for the duration of the body, on the\n   JS thread.\n   */\n  func f()\n}\n"
    );
    // Lines at the opener's own column stay there, and the closer keeps its space.
    let text = "/* Frees\nthe buffer. */\nvoid release(void) {}\n";
    let mut parsed = read(&C, text);
    parsed.document.blocks[0].source.runs = vec![Run::text(long)];
    let out = String::from_utf8(C.write(&parsed).expect("writes")).expect("utf-8");
    assert_eq!(
        out,
        "/* Lends the JavaScript object the events should be emitted to for the duration\nof the body, on the JS thread. */\nvoid release(void) {}\n"
    );
}

#[test]
fn a_parse_past_its_budget_is_refused_not_run_on() {
    // Deep nesting parses in linear time; the budget holds either way.
    let text = "fn f() { ".to_owned() + &"(".repeat(200_000) + "\n}";
    match RUST.read(text.as_bytes()) {
        Ok(_) | Err(ReadError::TooLarge { .. }) => {}
        Err(e) => panic!("{e}"),
    }
}

/// Hostile text made of comment markers, quotes, brackets and words, from a fixed seed:
/// every language reads it without a panic and, when it reads, writes it back byte for
/// byte; an edit of its first comment writes without a panic.
#[test]
fn generated_hostile_sources_read_and_write_back() {
    const TOKENS: &[&str] = &[
        "//",
        "///",
        "//!",
        "/*",
        "/**",
        "*/",
        "#",
        "#!",
        "\"\"\"",
        "'''",
        "\"",
        "'",
        "`",
        "{",
        "}",
        "(",
        ")",
        ";",
        "\n",
        "\r\n",
        " ",
        "    ",
        "fn f",
        "def f():",
        "class A",
        "=begin",
        "=end",
        "login",
        "@param x",
        "{@link X}",
        "<b>",
        "```",
        ">>> 1",
        "é",
        "\t",
    ];
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for round in 0..40 {
        let mut text = String::new();
        let len = 20 + (next() % 400) as usize;
        for _ in 0..len {
            text.push_str(TOKENS[(next() % TOKENS.len() as u64) as usize]);
        }
        for lang in LANGS {
            let Ok(mut parsed) = lang.read(text.as_bytes()) else {
                continue;
            };
            let written = lang.write(&parsed).expect("a no-op write");
            assert_eq!(written, text.as_bytes(), "{} round {round}", lang.info.id);
            if let Some(block) = parsed.document.blocks.iter_mut().find(|b| b.translatable) {
                block.source.runs = vec![Run::text("A new comment that wraps.")];
                let _ = lang.write(&parsed);
            }
        }
    }
}

#[test]
fn shell_prose_with_a_command_in_it_is_prose_and_a_command_alone_is_code() {
    let text = "#!/bin/sh\n# Summary: Configure the shell\n# Usage: eval \"$(tool init -)\"\nset -e\n\n# rm -rf \"$dir\"\necho done\n";
    let parsed = read(&SHELL, text);
    let roles: Vec<&str> = parsed
        .document
        .blocks
        .iter()
        .map(|b| b.role.as_str())
        .collect();
    assert_eq!(roles, ["paragraph", "code"], "{:?}", blocks(&parsed));
}

#[test]
fn a_sphinx_attribute_comment_keeps_its_marker_when_edited() {
    let text = "class A:\n    #: The default timeout.\n    timeout = 5\n";
    let mut parsed = read(&PYTHON, text);
    assert_eq!(
        blocks(&parsed),
        ["A/comment paragraph: The default timeout."]
    );
    parsed.document.blocks[0].source.runs = vec![Run::text("Seconds to wait.")];
    let out = String::from_utf8(PYTHON.write(&parsed).expect("writes")).expect("utf-8");
    assert_eq!(out, "class A:\n    #: Seconds to wait.\n    timeout = 5\n");
}

/// One byte changed in a real Kotlin file (found by the fuzzer) sends the grammar's error
/// recovery into seconds of work for 12 KB: the parse is stopped and the file refused, never
/// left to run on.
#[test]
fn runaway_error_recovery_is_stopped_and_refused() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/formats/code/kotlin/expo-AppContext.kt");
    let text = std::fs::read_to_string(path).expect("the corpus file");
    let at = text
        .find("        resultCode,\n        data\n")
        .expect("the call the fuzzer changed");
    let mut hostile = text[..at].to_owned();
    hostile.push_str("   #    resultCode,\n        data\n");
    hostile.push_str(&text[at + "        resultCode,\n        data\n".len()..]);
    hostile.truncate(12_746);
    match KOTLIN.read(hostile.as_bytes()) {
        Err(ReadError::TooLarge { message, .. }) => {
            assert!(
                message.contains("Kotlin comments parser gave up"),
                "{message}"
            );
        }
        Ok(_) => {}
        Err(e) => panic!("{e}"),
    }
}
