//! The languages whose comments kapi reads: each one's grammar, comment markers, the nodes
//! that name a declaration, and the width an edited comment wraps at.

use tree_sitter_language::LanguageFn;

use super::super::{Capabilities, FormatInfo};

/// How one language writes its comments, and where its grammar comes from.
pub struct Lang {
    pub info: FormatInfo,
    pub grammar: LanguageFn,
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
    /// The grammar reads plain words as code (a shell command, a Ruby method call): a comment
    /// is commented-out code only when every line of it holds code punctuation.
    pub words_parse: bool,
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

/// A language whose comments are C's (`//`, `/* */`, `///` and `/**` documentation), wrapped
/// at `width`.
const fn c_like(info: FormatInfo, grammar: LanguageFn, width: usize) -> Lang {
    Lang {
        info,
        grammar,
        line: C_LINE,
        block: C_BLOCK,
        doc: C_DOC,
        docstrings: false,
        tags: false,
        width,
        code_in: &[],
        words_parse: false,
    }
}

/// A language whose comments open with `#` and whose documentation has no marker.
const fn hash_like(info: FormatInfo, grammar: LanguageFn) -> Lang {
    Lang {
        info,
        grammar,
        line: HASH,
        block: &[],
        doc: &[],
        docstrings: false,
        tags: false,
        width: 80,
        code_in: &[],
        words_parse: false,
    }
}

/// JavaScript's family: `//` and `/* */`, documentation in `/**` (JSDoc).
const fn js_like(info: FormatInfo, grammar: LanguageFn) -> Lang {
    Lang {
        line: &["//"],
        doc: &["/**"],
        ..c_like(info, grammar, 80)
    }
}

/// A class-based language (Java, C#): statements stand inside a method of a class.
const CLASS_BODY: &[(&str, &str)] = &[
    ("class _K {\n", "\n}"),
    ("class _K { void _k() {\n", "\n}}"),
];

pub static RUST: Lang = Lang {
    code_in: &[("fn _k() {\n", "\n}")],
    ..c_like(
        info("rust", "Rust comments", &["rs"]),
        tree_sitter_rust::LANGUAGE,
        80,
    )
};

pub static PYTHON: Lang = Lang {
    // `#:` documents the attribute below it (Sphinx).
    line: &["#:", "#"],
    doc: &["#:"],
    docstrings: true,
    width: 88,
    ..hash_like(
        info("python", "Python comments", &["py", "pyi"]),
        tree_sitter_python::LANGUAGE,
    )
};

pub static JAVASCRIPT: Lang = js_like(
    info(
        "javascript",
        "JavaScript comments",
        &["js", "jsx", "mjs", "cjs"],
    ),
    tree_sitter_javascript::LANGUAGE,
);

pub static TYPESCRIPT: Lang = js_like(
    info("typescript", "TypeScript comments", &["ts", "mts", "cts"]),
    tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
);

pub static TSX: Lang = js_like(
    info("tsx", "TSX comments", &["tsx"]),
    tree_sitter_typescript::LANGUAGE_TSX,
);

pub static GO: Lang = Lang {
    line: &["//"],
    block: &[("/*", "*/")],
    doc: &[],
    code_in: &[("package _k\n", ""), ("package _k\nfunc _k() {\n", "\n}")],
    ..c_like(
        info("go", "Go comments", &["go"]),
        tree_sitter_go::LANGUAGE,
        80,
    )
};

pub static JAVA: Lang = Lang {
    tags: true,
    width: 100,
    code_in: CLASS_BODY,
    ..js_like(
        info("java", "Java comments", &["java"]),
        tree_sitter_java::LANGUAGE,
    )
};

pub static C: Lang = Lang {
    code_in: &[("void _k(void) {\n", "\n}")],
    ..c_like(
        info("c", "C comments", &["c", "h"]),
        tree_sitter_c::LANGUAGE,
        80,
    )
};

pub static CPP: Lang = Lang {
    code_in: &[("void _k() {\n", "\n}")],
    ..c_like(
        info(
            "cpp",
            "C++ comments",
            &["cc", "cpp", "cxx", "c++", "hh", "hpp", "hxx", "h++"],
        ),
        tree_sitter_cpp::LANGUAGE,
        80,
    )
};

pub static CSHARP: Lang = Lang {
    doc: &["///", "/**"],
    tags: true,
    code_in: CLASS_BODY,
    ..c_like(
        info("csharp", "C# comments", &["cs"]),
        tree_sitter_c_sharp::LANGUAGE,
        100,
    )
};

pub static KOTLIN: Lang = Lang {
    width: 100,
    code_in: &[("fun _k() {\n", "\n}")],
    ..js_like(
        info("kotlin", "Kotlin comments", &["kt", "kts"]),
        tree_sitter_kotlin_ng::LANGUAGE,
    )
};

pub static SWIFT: Lang = Lang {
    doc: &["///", "/**"],
    ..c_like(
        info("swift", "Swift comments", &["swift"]),
        tree_sitter_swift::LANGUAGE,
        100,
    )
};

pub static RUBY: Lang = Lang {
    block: &[("=begin", "=end")],
    words_parse: true,
    ..hash_like(
        info("ruby", "Ruby comments", &["rb", "rake", "gemspec"]),
        tree_sitter_ruby::LANGUAGE,
    )
};

pub static SHELL: Lang = Lang {
    words_parse: true,
    ..hash_like(
        info("shell", "Shell comments", &["sh", "bash"]),
        tree_sitter_bash::LANGUAGE,
    )
};

pub static TOML: Lang = hash_like(
    info("toml", "TOML comments", &["toml"]),
    tree_sitter_toml_ng::LANGUAGE,
);

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
