//! The languages whose comments kapi reads: each one's grammar, comment markers, the nodes
//! that name a declaration, and the width an edited comment wraps at.

use super::super::{Capabilities, FormatInfo};

/// How one language writes its comments, and where its grammar comes from.
pub struct Lang {
    pub info: FormatInfo,
    pub grammar: tree_sitter_language::LanguageFn,
    /// Line-comment markers, longest first (`///` before `//`).
    pub line: &'static [&'static str],
    /// Block-comment openers and their closer, longest opener first (`/**` before `/*`).
    pub block: &'static [(&'static str, &'static str)],
    /// The markers that make a comment documentation (`///`, `//!`, `/**`): the comment is
    /// prose even when it reads as code.
    pub doc: &'static [&'static str],
    /// Python's docstrings: the first string of a module, class or function body.
    pub docstrings: bool,
    /// Markup tags (`<summary>`, `<p>`) in doc comments are codes, not prose (C#, Java).
    pub tags: bool,
    /// The width an edited comment wraps at when its own lines do not say (the language's
    /// usual formatter default).
    pub width: usize,
    /// Where a statement may stand besides the top of a file, as the text before and after
    /// it: a comment that parses in one of these (or alone) is commented-out code.
    pub code_in: &'static [(&'static str, &'static str)],
}

/// What every comment format can do: read and checked; written only through the comment
/// write path (`kapi apply`), never the change service.
const CAPS: Capabilities = Capabilities {
    editable: false,
    round_trip: true,
    generative: false,
    bilingual: false,
    comments: true,
};

const fn info(
    id: &'static str,
    name: &'static str,
    extensions: &'static [&'static str],
) -> FormatInfo {
    FormatInfo {
        id,
        name,
        extensions,
        capabilities: CAPS,
    }
}

const C_LINE: &[&str] = &["///", "//!", "//"];
const C_BLOCK: &[(&str, &str)] = &[("/**", "*/"), ("/*!", "*/"), ("/*", "*/")];
const C_DOC: &[&str] = &["///", "//!", "/**", "/*!"];
const HASH: &[&str] = &["#"];

/// Every language, in the order `kapi formats` lists them.
pub static LANGS: [&Lang; 15] = [
    &RUST,
    &PYTHON,
    &JAVASCRIPT,
    &TYPESCRIPT,
    &TSX,
    &GO,
    &JAVA,
    &C,
    &CPP,
    &CSHARP,
    &KOTLIN,
    &SWIFT,
    &RUBY,
    &SHELL,
    &TOML,
];

pub static RUST: Lang = Lang {
    info: info("rust", "Rust comments", &["rs"]),
    grammar: tree_sitter_rust::LANGUAGE,
    line: C_LINE,
    block: C_BLOCK,
    doc: C_DOC,
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[("fn _k() {\n", "\n}")],
};

pub static PYTHON: Lang = Lang {
    info: info("python", "Python comments", &["py", "pyi"]),
    grammar: tree_sitter_python::LANGUAGE,
    line: HASH,
    block: &[],
    doc: &[],
    docstrings: true,
    tags: false,
    width: 88,
    code_in: &[],
};

pub static JAVASCRIPT: Lang = Lang {
    info: info(
        "javascript",
        "JavaScript comments",
        &["js", "jsx", "mjs", "cjs"],
    ),
    grammar: tree_sitter_javascript::LANGUAGE,
    line: &["//"],
    block: C_BLOCK,
    doc: &["/**"],
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[],
};

pub static TYPESCRIPT: Lang = Lang {
    info: info("typescript", "TypeScript comments", &["ts", "mts", "cts"]),
    grammar: tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
    line: &["//"],
    block: C_BLOCK,
    doc: &["/**"],
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[],
};

pub static TSX: Lang = Lang {
    info: info("tsx", "TSX comments", &["tsx"]),
    grammar: tree_sitter_typescript::LANGUAGE_TSX,
    line: &["//"],
    block: C_BLOCK,
    doc: &["/**"],
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[],
};

pub static GO: Lang = Lang {
    info: info("go", "Go comments", &["go"]),
    grammar: tree_sitter_go::LANGUAGE,
    line: &["//"],
    block: &[("/*", "*/")],
    doc: &[],
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[("package _k\n", ""), ("package _k\nfunc _k() {\n", "\n}")],
};

pub static JAVA: Lang = Lang {
    info: info("java", "Java comments", &["java"]),
    grammar: tree_sitter_java::LANGUAGE,
    line: &["//"],
    block: C_BLOCK,
    doc: &["/**"],
    docstrings: false,
    tags: true,
    width: 100,
    code_in: &[
        ("class _K {\n", "\n}"),
        ("class _K { void _k() {\n", "\n}}"),
    ],
};

pub static C: Lang = Lang {
    info: info("c", "C comments", &["c", "h"]),
    grammar: tree_sitter_c::LANGUAGE,
    line: C_LINE,
    block: C_BLOCK,
    doc: C_DOC,
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[("void _k(void) {\n", "\n}")],
};

pub static CPP: Lang = Lang {
    info: info(
        "cpp",
        "C++ comments",
        &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++"],
    ),
    grammar: tree_sitter_cpp::LANGUAGE,
    line: C_LINE,
    block: C_BLOCK,
    doc: C_DOC,
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[("void _k() {\n", "\n}")],
};

pub static CSHARP: Lang = Lang {
    info: info("csharp", "C# comments", &["cs"]),
    grammar: tree_sitter_c_sharp::LANGUAGE,
    line: C_LINE,
    block: C_BLOCK,
    doc: &["///", "/**"],
    docstrings: false,
    tags: true,
    width: 100,
    code_in: &[
        ("class _K {\n", "\n}"),
        ("class _K { void _k() {\n", "\n}}"),
    ],
};

pub static KOTLIN: Lang = Lang {
    info: info("kotlin", "Kotlin comments", &["kt", "kts"]),
    grammar: tree_sitter_kotlin_ng::LANGUAGE,
    line: &["//"],
    block: C_BLOCK,
    doc: &["/**"],
    docstrings: false,
    tags: false,
    width: 100,
    code_in: &[("fun _k() {\n", "\n}")],
};

pub static SWIFT: Lang = Lang {
    info: info("swift", "Swift comments", &["swift"]),
    grammar: tree_sitter_swift::LANGUAGE,
    line: C_LINE,
    block: C_BLOCK,
    doc: &["///", "/**"],
    docstrings: false,
    tags: false,
    width: 100,
    code_in: &[],
};

pub static RUBY: Lang = Lang {
    info: info("ruby", "Ruby comments", &["rb", "rake", "gemspec"]),
    grammar: tree_sitter_ruby::LANGUAGE,
    line: HASH,
    block: &[("=begin", "=end")],
    doc: &[],
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[],
};

pub static SHELL: Lang = Lang {
    info: info("shell", "Shell comments", &["sh", "bash"]),
    grammar: tree_sitter_bash::LANGUAGE,
    line: HASH,
    block: &[],
    doc: &[],
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[],
};

pub static TOML: Lang = Lang {
    info: info("toml", "TOML comments", &["toml"]),
    grammar: tree_sitter_toml_ng::LANGUAGE,
    line: HASH,
    block: &[],
    doc: &[],
    docstrings: false,
    tags: false,
    width: 80,
    code_in: &[],
};

/// The static info of `lang` (one of [`LANGS`]).
pub fn info_of(lang: &Lang) -> &'static FormatInfo {
    LANGS
        .iter()
        .find(|l| std::ptr::eq(**l, lang))
        .map_or(&RUST.info, |l| &l.info)
}

impl Lang {
    /// The grammar, ready for a parser.
    pub fn language(&self) -> tree_sitter::Language {
        tree_sitter::Language::new(self.grammar)
    }
}
