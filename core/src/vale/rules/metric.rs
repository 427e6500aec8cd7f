//! `extends: metric`: a formula over a document's counts, alerting when its condition holds
//! (Vale's `metric.go`), and the counts a caller gathers for one file ([`DocumentCounts`]).
//!
//! Vale evaluates `formula`, then `"<value as %f> <condition>"`, as Tengo scripts with the
//! `math` module and one float variable per count: the eight of the summary's text (`words`,
//! `sentences`, `syllables`, `complex_words`, `long_words`, `characters`,
//! `polysyllabic_words`, `paragraphs`; see the `readability` module for how twine counts
//! them) and the structure's (`pre`, `list`, `blockquote`, `heading_h1` … `heading_h6`;
//! `heading.h1` in a formula is rewritten to `heading_h1`). A document with no words gives no
//! alert. The alert is at the file's start, its `%s` the value formatted `%.2f`.
//!
//! Here the scripts are parsed, type-checked and evaluated by a small evaluator with Tengo's
//! semantics for the expressions formulas use: integer and float literals (integer
//! arithmetic stays integer, `%` is integer-only, `==` is false across types), the
//! variables, `+ - * / %`, unary `-`, `+` and `!`, comparisons, `&&` and `||` (which give an
//! operand, as in Tengo), parentheses, `true`, `false`, and the `math` module's float
//! functions and constants. Float division by zero gives infinities or NaN, as in Go.
//!
//! Where this differs from Vale:
//!
//! - Errors are found when the rule is compiled ([`RuleError::Field`] naming `formula` or
//!   `condition`): a syntax error, an unknown variable or function, a type error, an integer
//!   division by zero, a formula that does not give a float or a condition that does not give
//!   a boolean. Vale finds them only when it lints a document with words (and panics on the
//!   last one). Longer than 4,096 bytes, more than 1,024 tokens or nesting deeper than 64 is
//!   an error too.
//! - Only these variables exist. Vale also counts other skipped HTML elements (`figure`,
//!   `script`, …) and defines them when a document has one.
//! - Not evaluated: Tengo comments, the ternary `?:`, bitwise operators, builtins such as
//!   `int()`, and `math`'s integer and special functions (`gamma`, `erf`, `j0`, `ldexp`, …).
//! - A formula whose value is infinite or NaN is compared as Go compares floats (`+Inf > 3`
//!   holds, NaN compares false) and shown as Go prints it (`+Inf`, `NaN`); Vale prints it
//!   with `%f` into the condition's script, which then fails to compile, and stops with an
//!   error.
//! - A failure left for run time (an operand of `&&`/`||` whose type only the document
//!   decides) gives an unassessed outcome naming it; Vale stops with an error.

use std::sync::LazyLock;

use regex::Regex;

use super::RuleError;
use super::decode::Decoder;
use super::engine::ScopeKind;
use super::readability::TextStats;

/// The fields of a `metric` rule.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Metric {
    pub formula: String,
    pub condition: String,
}

/// What Vale gathers while it lints one file for its `summary` rules (`metric`,
/// `readability`): the summary's text and the structural counters.
///
/// Feed it every piece of the file in document order with [`add_piece`](Self::add_piece),
/// as Vale's HTML walker sees them (markup removed, inline code replaced by one `*` per
/// character, inline elements joined by a space, line breaks as `\n`), and call
/// [`add_code_block`](Self::add_code_block) for each code block. What counts:
///
/// - [`ScopeKind::Text`]: a block of prose (a paragraph, or any block that is not a heading,
///   list item, quote or table): its text and `\n\n` go to the summary.
/// - [`ScopeKind::List`]: a list item: to the summary, and `list` counts it.
/// - [`ScopeKind::Blockquote`]: a block quote's text: to the summary, and `blockquote` counts
///   it. (Vale counts a quote's or list item's first paragraph as the quote or item and its
///   further paragraphs as prose.)
/// - [`ScopeKind::Heading`]: `heading_hN` counts it; its text is not in the summary.
/// - Every other kind is ignored: `Paragraph` and `Sentence` are parts of a `Text` piece,
///   table cells, captions and alternative text are not in Vale's summary, and Vale drops
///   its table counters.
///
/// Vale builds no summary for a plain-text file (its summary rules never run there): leave
/// the counts empty for one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DocumentCounts {
    /// Vale's summary: each prose piece's text followed by `\n\n`, in document order.
    pub summary: String,
    /// Code blocks (`pre`).
    pub pre: usize,
    /// List items (`list`).
    pub list: usize,
    /// Block quotes (`blockquote`).
    pub blockquote: usize,
    /// Headings by level: `heading_h1` … `heading_h6`.
    pub headings: [usize; 6],
}

impl DocumentCounts {
    /// Adds one piece of the file (see the type's notes for what each kind does). A piece
    /// of only white space adds nothing: Vale lints no empty block.
    pub fn add_piece(&mut self, kind: ScopeKind, text: &str) {
        if text.trim().is_empty() {
            return;
        }
        let counter = match kind {
            ScopeKind::Text => None,
            ScopeKind::List => Some(&mut self.list),
            ScopeKind::Blockquote => Some(&mut self.blockquote),
            ScopeKind::Heading(level) => {
                // Other levels count as `h6`, as the engine scopes them.
                let i = match level {
                    1..=5 => usize::from(level) - 1,
                    _ => 5,
                };
                self.headings[i] += 1;
                return;
            }
            _ => return,
        };
        if let Some(counter) = counter {
            *counter += 1;
        }
        self.summary.push_str(text);
        self.summary.push_str("\n\n");
    }

    /// Counts one code block (Vale's `pre`).
    pub fn add_code_block(&mut self) {
        self.pre += 1;
    }

    /// The variables Vale's formulas see (counting the summary's text once).
    pub fn metrics(&self) -> Metrics {
        metrics(self)
    }
}

/// The variables of one document, as Vale's `ComputeMetrics` gives them.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Metrics {
    /// twine's counts of the summary.
    pub text: TextStats,
    pub pre: f64,
    pub list: f64,
    pub blockquote: f64,
    /// `heading_h1` … `heading_h6`.
    pub headings: [f64; 6],
}

/// The names of Vale's metric variables, in the order [`Metrics::values`] gives them.
pub const VARIABLES: [&str; 17] = [
    "complex_words",
    "long_words",
    "paragraphs",
    "sentences",
    "characters",
    "words",
    "polysyllabic_words",
    "syllables",
    "pre",
    "list",
    "blockquote",
    "heading_h1",
    "heading_h2",
    "heading_h3",
    "heading_h4",
    "heading_h5",
    "heading_h6",
];

impl Metrics {
    /// Whether the summary has no words: Vale's summary rules then give no alert.
    pub fn is_empty(&self) -> bool {
        self.text.words == 0.0
    }

    /// Each variable's value, in the order of [`VARIABLES`].
    pub fn values(&self) -> [f64; 17] {
        let t = &self.text;
        let h = &self.headings;
        [
            t.complex_words,
            t.long_words,
            t.paragraphs - 1.0,
            t.sentences,
            t.characters,
            t.words,
            t.polysyllabic_words,
            t.syllables,
            self.pre,
            self.list,
            self.blockquote,
            h[0],
            h[1],
            h[2],
            h[3],
            h[4],
            h[5],
        ]
    }

    /// The value of one variable by Vale's name (`words`, `heading_h2`, …).
    pub fn get(&self, name: &str) -> Option<f64> {
        let i = VARIABLES.iter().position(|v| *v == name)?;
        self.values().get(i).copied()
    }
}

/// Counts a document's summary with twine's rules and takes its structural counters.
pub fn metrics(counts: &DocumentCounts) -> Metrics {
    let f = |n: usize| n as f64;
    Metrics {
        text: TextStats::of(&counts.summary),
        pre: f(counts.pre),
        list: f(counts.list),
        blockquote: f(counts.blockquote),
        headings: counts.headings.map(f),
    }
}

/// A metric rule ready to run: its formula and its condition, parsed and type-checked.
#[derive(Debug, Clone)]
pub(crate) struct Compiled {
    formula: Expr,
    condition: Expr,
}

static HEADINGS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"heading\.(h[1-6])").unwrap_or_else(|e| unreachable!("headings: {e}"))
});

impl Metric {
    pub(crate) fn read(d: &mut Decoder) -> Result<Self, RuleError> {
        Ok(Self {
            formula: d.string("formula")?,
            condition: d.string("condition")?,
        })
    }

    /// Parses and checks the formula (with Vale's `heading.hN` rewrite) and the condition.
    pub(crate) fn compile(&self, file: &str) -> Result<Compiled, RuleError> {
        let field = |key: &str, message: String| RuleError::Field {
            file: file.to_owned(),
            key: key.to_owned(),
            expected: format!("an expression over Vale's metrics: {message}"),
        };
        let source = HEADINGS.replace_all(&self.formula, "heading_${1}");
        let formula = parse(&source, false).map_err(|m| field("formula", m))?;
        match check(&formula).map_err(|m| field("formula", m))? {
            Ty::Float | Ty::Any => {}
            ty => {
                return Err(field(
                    "formula",
                    format!("it gives {}, and Vale needs a float", ty.name()),
                ));
            }
        }
        let condition = parse(&self.condition, true).map_err(|m| field("condition", m))?;
        match check(&condition).map_err(|m| field("condition", m))? {
            Ty::Bool | Ty::Any => {}
            ty => {
                return Err(field(
                    "condition",
                    format!(
                        "a comparison such as `> 10`: after the value it gives {}",
                        ty.name()
                    ),
                ));
            }
        }
        Ok(Compiled { formula, condition })
    }
}

impl Compiled {
    /// The formula's value when the condition holds on this document; `Ok(None)` when it
    /// does not or the document has no words; `Err` for what only this document makes fail.
    pub(crate) fn evaluate(&self, metrics: &Metrics) -> Result<Option<f64>, String> {
        if metrics.is_empty() {
            return Ok(None);
        }
        let vars = metrics.values();
        let value = match eval(&self.formula, &vars, 0.0)? {
            Value::Float(v) => v,
            other => {
                return Err(format!(
                    "the formula gives {} on this document, and Vale needs a float",
                    other.ty().name()
                ));
            }
        };
        // Vale prints the value with `%f` (six decimals) into the condition's script.
        let printed = if value.is_finite() {
            format!("{value:.6}").parse().unwrap_or(value)
        } else {
            value
        };
        match eval(&self.condition, &vars, printed)? {
            Value::Bool(holds) => Ok(holds.then_some(value)),
            other => Err(format!(
                "the condition gives {} on this document, and Vale needs a boolean",
                other.ty().name()
            )),
        }
    }
}

/// A float as Go's `%.Nf` prints it (`+Inf`, `-Inf` and `NaN` included).
pub(crate) fn go_fixed(v: f64, decimals: usize) -> String {
    if v.is_nan() {
        "NaN".to_owned()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_owned()
    } else {
        format!("{v:.decimals$}")
    }
}

// ---- the evaluator: values and types ----

/// A Tengo value of the kinds formulas make.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Value {
    Int(i64),
    Float(f64),
    Bool(bool),
}

impl Value {
    fn ty(self) -> Ty {
        match self {
            Self::Int(_) => Ty::Int,
            Self::Float(_) => Ty::Float,
            Self::Bool(_) => Ty::Bool,
        }
    }

    /// Tengo's truthiness: an integer is false at 0, a float only when NaN.
    fn truthy(self) -> bool {
        match self {
            Self::Int(i) => i != 0,
            Self::Float(f) => !f.is_nan(),
            Self::Bool(b) => b,
        }
    }

    fn number(self) -> Option<f64> {
        match self {
            Self::Int(i) => Some(i as f64),
            Self::Float(f) => Some(f),
            Self::Bool(_) => None,
        }
    }
}

/// A static type; `Any` where the document decides (an operand of `&&`/`||`).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Ty {
    Int,
    Float,
    Bool,
    Any,
}

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Self::Int => "an integer",
            Self::Float => "a float",
            Self::Bool => "a boolean",
            Self::Any => "a value",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Op {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Less,
    Greater,
    LessEq,
    GreaterEq,
    Equal,
    NotEqual,
    And,
    Or,
}

impl Op {
    /// Go's precedence levels.
    fn precedence(self) -> u8 {
        match self {
            Self::Or => 1,
            Self::And => 2,
            Self::Equal
            | Self::NotEqual
            | Self::Less
            | Self::LessEq
            | Self::Greater
            | Self::GreaterEq => 3,
            Self::Add | Self::Sub => 4,
            Self::Mul | Self::Div | Self::Rem => 5,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Self::Add => "+",
            Self::Sub => "-",
            Self::Mul => "*",
            Self::Div => "/",
            Self::Rem => "%",
            Self::Less => "<",
            Self::Greater => ">",
            Self::LessEq => "<=",
            Self::GreaterEq => ">=",
            Self::Equal => "==",
            Self::NotEqual => "!=",
            Self::And => "&&",
            Self::Or => "||",
        }
    }

    fn ordering(self) -> bool {
        matches!(
            self,
            Self::Less | Self::Greater | Self::LessEq | Self::GreaterEq
        )
    }
}

/// A function of Tengo's `math` module.
#[derive(Clone, Copy)]
enum MathFn {
    One(fn(f64) -> f64),
    Two(fn(f64, f64) -> f64),
}

impl std::fmt::Debug for MathFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::One(_) => "MathFn::One",
            Self::Two(_) => "MathFn::Two",
        })
    }
}

#[derive(Debug, Clone)]
enum Expr {
    Const(Value),
    /// A variable, by its index in [`VARIABLES`].
    Var(usize),
    /// The formula's value, first in a condition.
    Value,
    Neg(Box<Expr>),
    Not(Box<Expr>),
    Binary(Op, Box<Expr>, Box<Expr>),
    Call(MathFn, Vec<Expr>),
}

const MAX_BYTES: usize = 4096;
const MAX_TOKENS: usize = 1024;
const MAX_DEPTH: usize = 64;

/// The `math` module's constants.
fn math_constant(name: &str) -> Option<f64> {
    use std::f64::consts as c;
    Some(match name {
        "e" => c::E,
        "pi" => c::PI,
        "phi" => 1.618_033_988_749_895,
        "sqrt2" => c::SQRT_2,
        "sqrtE" => 1.648_721_270_700_128_2,
        "sqrtPi" => 1.772_453_850_905_516,
        "sqrtPhi" => 1.272_019_649_514_069,
        "ln2" => c::LN_2,
        "log2E" => c::LOG2_E,
        "ln10" => c::LN_10,
        "log10E" => c::LOG10_E,
        _ => return None,
    })
}

/// The `math` module's float functions, with Go's semantics where Rust's differ.
fn math_function(name: &str) -> Option<MathFn> {
    use MathFn::{One, Two};
    Some(match name {
        "abs" => One(f64::abs),
        "acos" => One(f64::acos),
        "acosh" => One(f64::acosh),
        "asin" => One(f64::asin),
        "asinh" => One(f64::asinh),
        "atan" => One(f64::atan),
        "atanh" => One(f64::atanh),
        "cbrt" => One(f64::cbrt),
        "ceil" => One(f64::ceil),
        "cos" => One(f64::cos),
        "cosh" => One(f64::cosh),
        "exp" => One(f64::exp),
        "exp2" => One(f64::exp2),
        "expm1" => One(f64::exp_m1),
        "floor" => One(f64::floor),
        "log" => One(f64::ln),
        "log10" => One(f64::log10),
        "log1p" => One(f64::ln_1p),
        "log2" => One(f64::log2),
        "sin" => One(f64::sin),
        "sinh" => One(f64::sinh),
        "sqrt" => One(f64::sqrt),
        "tan" => One(f64::tan),
        "tanh" => One(f64::tanh),
        "trunc" => One(f64::trunc),
        "atan2" => Two(f64::atan2),
        "copysign" => Two(f64::copysign),
        "dim" => Two(|x, y| if x - y <= 0.0 { 0.0 } else { x - y }),
        "hypot" => Two(f64::hypot),
        "max" => Two(go_max),
        "min" => Two(go_min),
        "mod" => Two(|x, y| x % y),
        "pow" => Two(f64::powf),
        _ => return None,
    })
}

/// Go's `math.Max`: an infinity wins, then NaN, and +0 over -0.
fn go_max(x: f64, y: f64) -> f64 {
    if x == f64::INFINITY || y == f64::INFINITY {
        f64::INFINITY
    } else if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == 0.0 && y == 0.0 {
        if x.is_sign_negative() { y } else { x }
    } else if x > y {
        x
    } else {
        y
    }
}

/// Go's `math.Min`: a negative infinity wins, then NaN, and -0 over +0.
fn go_min(x: f64, y: f64) -> f64 {
    if x == f64::NEG_INFINITY || y == f64::NEG_INFINITY {
        f64::NEG_INFINITY
    } else if x.is_nan() || y.is_nan() {
        f64::NAN
    } else if x == 0.0 && y == 0.0 {
        if x.is_sign_negative() { x } else { y }
    } else if x < y {
        x
    } else {
        y
    }
}

// ---- the evaluator: tokens ----

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Num(Value),
    Ident(String),
    Op(Op),
    Not,
    LParen,
    RParen,
    Comma,
    Dot,
    /// A newline after an operand: Tengo inserts a semicolon there.
    Newline,
    /// The formula's value at the start of a condition.
    Value,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Self::Num(_) => "a number".to_owned(),
            Self::Ident(s) => format!("'{s}'"),
            Self::Op(op) => format!("'{}'", op.symbol()),
            Self::Not => "'!'".to_owned(),
            Self::LParen => "'('".to_owned(),
            Self::RParen => "')'".to_owned(),
            Self::Comma => "','".to_owned(),
            Self::Dot => "'.'".to_owned(),
            Self::Newline => "a line break (Tengo ends the statement there)".to_owned(),
            Self::Value => "the value".to_owned(),
        }
    }
}

/// Tengo's scanner for the tokens formulas use. `after_value` is set for a condition, which
/// Vale writes after the formula's value (so a newline first ends the statement).
fn lex(src: &str, after_value: bool) -> Result<Vec<(Tok, usize)>, String> {
    let bytes = src.as_bytes();
    let mut out: Vec<(Tok, usize)> = Vec::new();
    if after_value {
        out.push((Tok::Value, 0));
    }
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if out.len() > MAX_TOKENS {
            return Err(format!("more than {MAX_TOKENS} tokens"));
        }
        let operand_end = matches!(
            out.last(),
            Some((Tok::Num(_) | Tok::Ident(_) | Tok::RParen | Tok::Value, _))
        );
        let two = bytes.get(i..i + 2).unwrap_or_default();
        let (tok, len) = match b {
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'\n' if !operand_end => {
                i += 1;
                continue;
            }
            b'\n' => (Tok::Newline, 1),
            b'0'..=b'9' => number(src, i)?,
            b'.' if bytes.get(i + 1).is_some_and(u8::is_ascii_digit) => number(src, i)?,
            b'.' => (Tok::Dot, 1),
            b'(' => (Tok::LParen, 1),
            b')' => (Tok::RParen, 1),
            b',' => (Tok::Comma, 1),
            b'+' => (Tok::Op(Op::Add), 1),
            b'-' => (Tok::Op(Op::Sub), 1),
            b'*' => (Tok::Op(Op::Mul), 1),
            b'/' if matches!(two, b"//" | b"/*") => {
                return Err(format!("a comment at byte {i}: kapi reads none"));
            }
            b'/' => (Tok::Op(Op::Div), 1),
            b'%' => (Tok::Op(Op::Rem), 1),
            _ if two == b"&&" => (Tok::Op(Op::And), 2),
            _ if two == b"||" => (Tok::Op(Op::Or), 2),
            _ if two == b"==" => (Tok::Op(Op::Equal), 2),
            _ if two == b"!=" => (Tok::Op(Op::NotEqual), 2),
            _ if two == b"<=" => (Tok::Op(Op::LessEq), 2),
            _ if two == b">=" => (Tok::Op(Op::GreaterEq), 2),
            b'<' => (Tok::Op(Op::Less), 1),
            b'>' => (Tok::Op(Op::Greater), 1),
            b'!' => (Tok::Not, 1),
            _ => identifier(src, i)?,
        };
        out.push((tok, i));
        i += len;
    }
    Ok(out)
}

/// A number literal at `start`: decimal, hexadecimal (`0x`) or octal (leading `0`)
/// integers; floats with a fraction or an exponent.
fn number(src: &str, start: usize) -> Result<(Tok, usize), String> {
    let bytes = src.as_bytes();
    let at = |i: usize| bytes.get(i).copied().unwrap_or(0);
    let digits = |mut i: usize, ok: fn(&u8) -> bool| {
        while bytes.get(i).is_some_and(ok) {
            i += 1;
        }
        i
    };
    let bad = || format!("a malformed number at byte {start}");
    if at(start) == b'0' && matches!(at(start + 1), b'x' | b'X') {
        let end = digits(start + 2, u8::is_ascii_hexdigit);
        let text = src.get(start + 2..end).unwrap_or_default();
        let v = i64::from_str_radix(text, 16).map_err(|_| bad())?;
        return Ok((Tok::Num(Value::Int(v)), end - start));
    }
    let mut end = digits(start, u8::is_ascii_digit);
    let mut float = false;
    if at(end) == b'.' {
        float = true;
        end = digits(end + 1, u8::is_ascii_digit);
    }
    if matches!(at(end), b'e' | b'E') {
        float = true;
        end += 1;
        if matches!(at(end), b'+' | b'-') {
            end += 1;
        }
        if !at(end).is_ascii_digit() {
            return Err(bad());
        }
        end = digits(end, u8::is_ascii_digit);
    }
    let text = src.get(start..end).unwrap_or_default();
    let value = if float {
        let v: f64 = text.parse().map_err(|_| bad())?;
        if !v.is_finite() {
            return Err(bad());
        }
        Value::Float(v)
    } else if text.len() > 1 && text.starts_with('0') {
        let octal = text.get(1..).unwrap_or_default();
        Value::Int(i64::from_str_radix(octal, 8).map_err(|_| bad())?)
    } else {
        Value::Int(text.parse().map_err(|_| bad())?)
    };
    Ok((Tok::Num(value), end - start))
}

/// An identifier (letters, digits, `_`) at `start`, or an error for any other character.
fn identifier(src: &str, start: usize) -> Result<(Tok, usize), String> {
    let rest = src.get(start..).unwrap_or_default();
    let len = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(rest.len(), |(i, _)| i);
    let first = rest.chars().next().unwrap_or(' ');
    if len == 0 || first.is_numeric() {
        return Err(format!("an unexpected '{first}' at byte {start}"));
    }
    let word = rest.get(..len).unwrap_or_default();
    let tok = match word {
        "true" => Tok::Num(Value::Bool(true)),
        "false" => Tok::Num(Value::Bool(false)),
        _ => Tok::Ident(word.to_owned()),
    };
    Ok((tok, len))
}

// ---- the evaluator: parsing ----

/// Parses a formula, or a condition (`after_value`: it follows the formula's value).
fn parse(src: &str, after_value: bool) -> Result<Expr, String> {
    // Vale trims the formula, and the condition's end (its start follows the value).
    let src = if after_value {
        src.trim_end()
    } else {
        src.trim()
    };
    if src.len() > MAX_BYTES {
        return Err(format!("longer than {MAX_BYTES} bytes"));
    }
    if src.is_empty() && !after_value {
        return Err("empty".to_owned());
    }
    let tokens = lex(src, after_value)?;
    let mut p = Parser {
        tokens: &tokens,
        at: 0,
        depth: 0,
    };
    let expr = p.expr(1)?;
    match p.tokens.get(p.at) {
        None => Ok(expr),
        Some((tok, at)) => Err(format!("{} at byte {at} is unexpected", tok.describe())),
    }
}

struct Parser<'a> {
    tokens: &'a [(Tok, usize)],
    at: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at).map(|(t, _)| t)
    }

    fn unexpected(&self, wanted: &str) -> String {
        match self.tokens.get(self.at) {
            Some((tok, at)) => format!("{wanted} expected at byte {at}, not {}", tok.describe()),
            None => format!("{wanted} expected at the end"),
        }
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH}"));
        }
        Ok(())
    }

    /// Binary operators of at least `min` precedence, left-associative (precedence climbing).
    fn expr(&mut self, min: u8) -> Result<Expr, String> {
        self.enter()?;
        let mut lhs = self.unary()?;
        while let Some(Tok::Op(op)) = self.peek() {
            let op = *op;
            if op.precedence() < min {
                break;
            }
            self.at += 1;
            let rhs = self.expr(op.precedence() + 1)?;
            lhs = Expr::Binary(op, Box::new(lhs), Box::new(rhs));
        }
        self.depth -= 1;
        Ok(lhs)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        let wrap: fn(Box<Expr>) -> Expr = match self.peek() {
            Some(Tok::Op(Op::Sub)) => Expr::Neg,
            Some(Tok::Not) => Expr::Not,
            Some(Tok::Op(Op::Add)) => |e| *e,
            _ => return self.primary(),
        };
        self.at += 1;
        self.enter()?;
        let operand = self.unary()?;
        self.depth -= 1;
        Ok(wrap(Box::new(operand)))
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some((tok, at)) = self.tokens.get(self.at) else {
            return Err(self.unexpected("an operand"));
        };
        let at = *at;
        let expr = match tok {
            Tok::Num(v) => Expr::Const(*v),
            Tok::Value => Expr::Value,
            Tok::LParen => {
                self.at += 1;
                let inner = self.expr(1)?;
                if self.peek() != Some(&Tok::RParen) {
                    return Err(self.unexpected("')'"));
                }
                inner
            }
            Tok::Ident(name) if name == "math" => return self.math(),
            Tok::Ident(name) => match VARIABLES.iter().position(|v| v == name) {
                Some(i) => Expr::Var(i),
                None => {
                    return Err(format!(
                        "'{name}' at byte {at} is not a variable (Vale's are {})",
                        VARIABLES.join(", ")
                    ));
                }
            },
            _ => return Err(self.unexpected("an operand")),
        };
        self.at += 1;
        Ok(expr)
    }

    /// `math.name` or `math.name(args)`.
    fn math(&mut self) -> Result<Expr, String> {
        self.at += 1;
        if self.peek() != Some(&Tok::Dot) {
            return Err(self.unexpected("'.' after 'math'"));
        }
        self.at += 1;
        let Some(Tok::Ident(name)) = self.peek() else {
            return Err(self.unexpected("a name after 'math.'"));
        };
        let name = name.clone();
        self.at += 1;
        if self.peek() != Some(&Tok::LParen) {
            return match math_constant(&name) {
                Some(v) => Ok(Expr::Const(Value::Float(v))),
                None => Err(format!(
                    "'math.{name}' is not a constant of Tengo's math module"
                )),
            };
        }
        let Some(f) = math_function(&name) else {
            return Err(format!(
                "'math.{name}' is not a function kapi evaluates (Tengo's math module, float functions)"
            ));
        };
        self.at += 1;
        self.enter()?;
        let mut args = Vec::new();
        if self.peek() != Some(&Tok::RParen) {
            loop {
                args.push(self.expr(1)?);
                if self.peek() != Some(&Tok::Comma) {
                    break;
                }
                self.at += 1;
            }
        }
        if self.peek() != Some(&Tok::RParen) {
            return Err(self.unexpected("')'"));
        }
        self.at += 1;
        self.depth -= 1;
        let wanted = match f {
            MathFn::One(_) => 1,
            MathFn::Two(_) => 2,
        };
        if args.len() != wanted {
            return Err(format!(
                "'math.{name}' takes {wanted} argument(s), not {}",
                args.len()
            ));
        }
        Ok(Expr::Call(f, args))
    }
}

// ---- the evaluator: checking and evaluating ----

/// The static type of an expression, or the error Tengo would give for every document.
/// Integer-typed expressions are constants, so an integer division by zero is found here.
fn check(e: &Expr) -> Result<Ty, String> {
    Ok(match e {
        Expr::Const(v) => v.ty(),
        Expr::Var(_) | Expr::Value => Ty::Float,
        Expr::Neg(x) => match check(x)? {
            Ty::Bool => return Err("'-' applied to a boolean".to_owned()),
            ty => ty,
        },
        Expr::Not(x) => {
            check(x)?;
            Ty::Bool
        }
        Expr::Call(_, args) => {
            for a in args {
                if check(a)? == Ty::Bool {
                    return Err("a math function given a boolean".to_owned());
                }
            }
            Ty::Float
        }
        Expr::Binary(op, l, r) => {
            let (lt, rt) = (check(l)?, check(r)?);
            match op {
                Op::And | Op::Or => {
                    if lt == rt {
                        lt
                    } else {
                        Ty::Any
                    }
                }
                Op::Equal | Op::NotEqual => Ty::Bool,
                _ => binary_type(*op, lt, rt, r)?,
            }
        }
    })
}

fn binary_type(op: Op, lt: Ty, rt: Ty, rhs: &Expr) -> Result<Ty, String> {
    let invalid = |a: Ty, b: Ty| {
        format!(
            "'{}' between {} and {} (Tengo refuses it)",
            op.symbol(),
            a.name(),
            b.name()
        )
    };
    if lt == Ty::Bool || rt == Ty::Bool || (op == Op::Rem && (lt == Ty::Float || rt == Ty::Float)) {
        return Err(invalid(lt, rt));
    }
    if op.ordering() {
        return Ok(Ty::Bool);
    }
    Ok(match (lt, rt) {
        (Ty::Int, Ty::Int) => {
            if matches!(op, Op::Div | Op::Rem) && eval(rhs, &[0.0; 17], 0.0)? == Value::Int(0) {
                return Err("an integer division by zero".to_owned());
            }
            Ty::Int
        }
        (Ty::Any, _) | (_, Ty::Any) => Ty::Any,
        _ => Ty::Float,
    })
}

/// Evaluates with Tengo's semantics; `value` is the formula's value (in a condition).
fn eval(e: &Expr, vars: &[f64; 17], value: f64) -> Result<Value, String> {
    Ok(match e {
        Expr::Const(v) => *v,
        Expr::Var(i) => Value::Float(vars.get(*i).copied().unwrap_or_default()),
        Expr::Value => Value::Float(value),
        Expr::Neg(x) => match eval(x, vars, value)? {
            Value::Int(i) => Value::Int(i.wrapping_neg()),
            Value::Float(f) => Value::Float(-f),
            Value::Bool(_) => return Err("'-' applied to a boolean".to_owned()),
        },
        Expr::Not(x) => Value::Bool(!eval(x, vars, value)?.truthy()),
        Expr::Call(f, args) => {
            let mut xs = [0.0; 2];
            for (slot, a) in xs.iter_mut().zip(args) {
                *slot = eval(a, vars, value)?
                    .number()
                    .ok_or("a math function given a boolean")?;
            }
            Value::Float(match f {
                MathFn::One(f) => f(xs[0]),
                MathFn::Two(f) => f(xs[0], xs[1]),
            })
        }
        Expr::Binary(Op::And, l, r) => {
            let l = eval(l, vars, value)?;
            if l.truthy() { eval(r, vars, value)? } else { l }
        }
        Expr::Binary(Op::Or, l, r) => {
            let l = eval(l, vars, value)?;
            if l.truthy() { l } else { eval(r, vars, value)? }
        }
        Expr::Binary(op, l, r) => binary(*op, eval(l, vars, value)?, eval(r, vars, value)?)?,
    })
}

fn binary(op: Op, l: Value, r: Value) -> Result<Value, String> {
    use Value::{Bool, Float, Int};
    match op {
        Op::Equal => return Ok(Bool(l == r)),
        Op::NotEqual => return Ok(Bool(l != r)),
        _ => {}
    }
    let invalid = || {
        format!(
            "'{}' between {} and {} (Tengo refuses it)",
            op.symbol(),
            l.ty().name(),
            r.ty().name()
        )
    };
    if let (Int(a), Int(b)) = (l, r) {
        return Ok(match op {
            Op::Add => Int(a.wrapping_add(b)),
            Op::Sub => Int(a.wrapping_sub(b)),
            Op::Mul => Int(a.wrapping_mul(b)),
            Op::Div | Op::Rem if b == 0 => return Err("an integer division by zero".to_owned()),
            Op::Div => Int(a.wrapping_div(b)),
            Op::Rem => Int(a.wrapping_rem(b)),
            Op::Less => Bool(a < b),
            Op::Greater => Bool(a > b),
            Op::LessEq => Bool(a <= b),
            Op::GreaterEq => Bool(a >= b),
            _ => return Err(invalid()),
        });
    }
    let (Some(a), Some(b)) = (l.number(), r.number()) else {
        return Err(invalid());
    };
    Ok(match op {
        Op::Add => Float(a + b),
        Op::Sub => Float(a - b),
        Op::Mul => Float(a * b),
        Op::Div => Float(a / b),
        Op::Less => Bool(a < b),
        Op::Greater => Bool(a > b),
        Op::LessEq => Bool(a <= b),
        Op::GreaterEq => Bool(a >= b),
        _ => return Err(invalid()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Variables for tests: `words` 100, `sentences` 4, `pre` 0, `list` 2, the rest 0.
    fn vars() -> [f64; 17] {
        let mut v = [0.0; 17];
        v[5] = 100.0;
        v[3] = 4.0;
        v[9] = 2.0;
        v
    }

    fn ev(src: &str) -> Result<Value, String> {
        let e = parse(src, false)?;
        check(&e)?;
        eval(&e, &vars(), 0.0)
    }

    fn err(src: &str) -> String {
        ev(src).unwrap_err()
    }

    #[test]
    fn precedence_and_associativity_are_gos() {
        use Value::{Bool, Float, Int};
        let cases = [
            ("1 + 2 * 3", Int(7)),
            ("(1 + 2) * 3", Int(9)),
            ("10 - 4 - 3", Int(3)),
            ("2 * 3 % 4", Int(2)),
            ("7 / 2", Int(3)),
            ("-7 / 2", Int(-3)),
            ("7.0 / 2", Float(3.5)),
            ("-2 * 3", Int(-6)),
            ("- -2", Int(2)),
            ("+words", Float(100.0)),
            ("1 + 2 > 2 && 3 < 4 || false", Bool(true)),
            ("false || 1 > 2", Bool(false)),
            ("words / sentences", Float(25.0)),
            ("words / sentences * 2 - list", Float(48.0)),
            ("words/sentences+list", Float(27.0)),
            ("!true", Bool(false)),
            ("!0", Bool(true)),
            ("1 <= 1 && 2 >= 3 == false", Bool(true)),
            (".5 + 1.", Float(1.5)),
            ("1e2 + 0x10 + 010", Float(124.0)),
            ("9223372036854775807 + 1", Int(i64::MIN)),
        ];
        for (src, want) in cases {
            assert_eq!(ev(src), Ok(want), "{src}");
        }
    }

    #[test]
    fn tengo_types_and_truthiness() {
        use Value::{Bool, Float, Int};
        // `==` is false across types; floats are truthy unless NaN.
        assert_eq!(ev("words == 100"), Ok(Bool(false)));
        assert_eq!(ev("words == 100.0"), Ok(Bool(true)));
        assert_eq!(ev("1 == 1.0"), Ok(Bool(false)));
        assert_eq!(ev("1 != 1.0"), Ok(Bool(true)));
        assert_eq!(ev("pre && 5"), Ok(Int(5)));
        assert_eq!(ev("0 || words"), Ok(Float(100.0)));
        assert_eq!(ev("0 && words"), Ok(Int(0)));
        assert_eq!(ev("!(pre / pre)"), Ok(Bool(true)));
        // Go float division: infinities and NaN, no panic.
        assert_eq!(ev("words / pre"), Ok(Float(f64::INFINITY)));
        assert_eq!(ev("-words / 0"), Ok(Float(f64::NEG_INFINITY)));
        assert!(matches!(ev("pre / 0.0"), Ok(Float(f)) if f.is_nan()));
        assert_eq!(ev("words / pre > 3"), Ok(Bool(true)));
        assert_eq!(ev("pre / pre > 3 || pre / pre <= 3"), Ok(Bool(false)));
    }

    #[test]
    fn math_functions_and_constants() {
        use Value::Float;
        let cases = [
            ("math.sqrt(16)", 4.0),
            ("math.pow(2, 10)", 1024.0),
            ("math.abs(-3)", 3.0),
            ("math.floor(2.7) + math.ceil(2.1)", 5.0),
            ("math.max(words, 3)", 100.0),
            ("math.min(1, -2.5)", -2.5),
            ("math.mod(7, 3)", 1.0),
            ("math.dim(2, 5)", 0.0),
            ("math.log10(words)", 2.0),
            (
                "1.0430 * math.sqrt((list * 30.0) / sentences) + 3.1291",
                1.043 * 15f64.sqrt() + 3.1291,
            ),
        ];
        for (src, want) in cases {
            assert_eq!(ev(src), Ok(Float(want)), "{src}");
        }
        assert_eq!(ev("math.pi"), Ok(Float(std::f64::consts::PI)));
        assert!(go_max(1.0, f64::NAN).is_nan());
        assert_eq!(go_max(f64::NAN, f64::INFINITY), f64::INFINITY);
        assert!(go_max(-0.0, 0.0).is_sign_positive());
        assert!(go_min(-0.0, 0.0).is_sign_negative());
    }

    #[test]
    fn errors_name_what_is_wrong() {
        for (src, has) in [
            ("", "empty"),
            ("foo + 1", "'foo' at byte 0 is not a variable"),
            ("heading.h1", "'heading' at byte 0 is not a variable"),
            ("1 +", "an operand expected at the end"),
            ("(1", "')' expected at the end"),
            ("1 2", "a number at byte 2 is unexpected"),
            ("words % 2", "'%' between a float and an integer"),
            ("true + 1", "'+' between a boolean and an integer"),
            ("-true", "'-' applied to a boolean"),
            ("words > 1 > 0", "'>' between a boolean and an integer"),
            ("1 / 0", "integer division by zero"),
            ("1 % (2 - 2)", "integer division by zero"),
            ("math.round(words)", "'math.round' is not a function"),
            ("math.sqrt(1, 2)", "takes 1 argument(s), not 2"),
            ("math.sqrt(true)", "given a boolean"),
            ("math.tau", "not a constant"),
            ("math(1)", "'.' after 'math' expected"),
            ("words(1)", "'(' at byte 5 is unexpected"),
            ("words = 1", "unexpected '='"),
            ("words & 1", "unexpected '&'"),
            ("words // note", "a comment"),
            ("1e", "malformed number"),
            ("1e999", "malformed number"),
            ("08", "malformed number"),
            ("99999999999999999999", "malformed number"),
            ("words\n+ 1", "a line break"),
            ("words\u{a0}+ 1", "unexpected"),
        ] {
            let e = err(src);
            assert!(e.contains(has), "{src:?}: {e}");
        }
        // A newline after an operator is fine, as in Tengo.
        assert_eq!(ev("(words +\n sentences)"), Ok(Value::Float(104.0)));
    }

    #[test]
    fn hostile_formulas_are_bounded() {
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert!(err(&deep).contains("nested deeper than 64"));
        assert!(err(&"-".repeat(200)).contains("nested deeper"));
        assert!(err(&"!".repeat(5000)).contains("longer than 4096 bytes"));
        assert!(err(&format!("{}1", "1+".repeat(1000))).contains("more than 1024 tokens"));
        assert_eq!(ev(&format!("{}1", "1+".repeat(500))), Ok(Value::Int(501)));
        let nested = format!("{}1{}", "(".repeat(30), ")".repeat(30));
        assert_eq!(ev(&nested), Ok(Value::Int(1)));
    }

    fn rule(formula: &str, condition: &str) -> Result<Compiled, RuleError> {
        Metric {
            formula: formula.into(),
            condition: condition.into(),
        }
        .compile("S/R.yml")
    }

    fn key_of(e: RuleError) -> String {
        match e {
            RuleError::Field { file, key, .. } if file == "S/R.yml" => key,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn compiling_checks_the_formula_and_the_condition() {
        assert!(rule("heading.h1 + list", "> 0").is_ok());
        assert!(rule("words / sentences", "> 10 && words > 5").is_ok());
        assert!(rule("(words > 1 && 1) + 0.5", "> 1").is_ok());
        for (formula, condition, key) in [
            ("2", "> 1", "formula"),
            ("words > 1", "> 1", "formula"),
            ("", "> 1", "formula"),
            ("nope", "> 1", "formula"),
            ("words", "", "condition"),
            ("words", "+ 1", "condition"),
            ("words", "> heading.h1", "condition"),
            ("words", "> 1 +", "condition"),
            ("words", "\n> 1", "condition"),
        ] {
            let e = rule(formula, condition).unwrap_err();
            assert!(
                e.to_string().contains("an expression over Vale's metrics"),
                "{e}"
            );
            assert_eq!(key_of(e), key, "{formula:?} {condition:?}");
        }
    }

    fn with(words: &str) -> Metrics {
        let mut c = DocumentCounts::default();
        c.add_piece(ScopeKind::Text, words);
        metrics(&c)
    }

    #[test]
    fn the_condition_sees_the_value_as_vale_prints_it() {
        let m = with("One two three.");
        assert_eq!(m.get("words"), Some(3.0));
        // `%f` rounds to six decimals before the condition compares.
        let r = rule("10.0000004 + words * 0", "> 10").unwrap();
        assert_eq!(r.evaluate(&m), Ok(None));
        let r = rule("10.0000006 + words * 0", "> 10").unwrap();
        assert_eq!(r.evaluate(&m), Ok(Some(10.0000006)));
        // The condition may use variables, and starts with the value.
        let r = rule("words / sentences", "* 2 > words + 2").unwrap();
        assert_eq!(r.evaluate(&m), Ok(Some(3.0)));
        // Infinities compare as in Go; NaN never holds.
        let r = rule("words / pre", "> 3").unwrap();
        assert_eq!(r.evaluate(&m), Ok(Some(f64::INFINITY)));
        assert_eq!(go_fixed(f64::INFINITY, 2), "+Inf");
        assert_eq!(go_fixed(f64::NAN, 2), "NaN");
        assert_eq!(go_fixed(-0.125, 2), "-0.12");
        for condition in ["> 3", "<= 3", "== pre / pre"] {
            let r = rule("pre / pre", condition).unwrap();
            assert_eq!(r.evaluate(&m), Ok(None), "{condition}");
        }
        // No words: no alert, whatever the formula.
        let r = rule("pre + 1.0", "> 0").unwrap();
        assert_eq!(r.evaluate(&with("")), Ok(None));
        assert_eq!(r.evaluate(&with("...")), Ok(None));
        // A type only the document decides fails at run time.
        let r = rule("(words > 5 && 1) + 0.5", "> 1").unwrap();
        assert!(
            r.evaluate(&m)
                .unwrap_err()
                .contains("between a boolean and a float")
        );
        let m = with("One two three four five six.");
        assert_eq!(r.evaluate(&m), Ok(Some(1.5)));
    }

    #[test]
    fn document_counts_follow_vales_summary() {
        let mut c = DocumentCounts::default();
        c.add_piece(ScopeKind::Heading(1), "Title");
        c.add_piece(ScopeKind::Text, "A paragraph.");
        c.add_piece(ScopeKind::Paragraph, "A paragraph.");
        c.add_piece(ScopeKind::Sentence, "A paragraph.");
        c.add_piece(ScopeKind::List, "An item");
        c.add_piece(ScopeKind::Blockquote, "A quote.");
        c.add_piece(ScopeKind::TableCell, "cell");
        c.add_piece(ScopeKind::Heading(2), "Sub");
        c.add_piece(ScopeKind::Heading(9), "Deep");
        c.add_piece(ScopeKind::Heading(3), " \n");
        c.add_piece(ScopeKind::List, "");
        c.add_code_block();
        assert_eq!(c.summary, "A paragraph.\n\nAn item\n\nA quote.\n\n");
        assert_eq!((c.pre, c.list, c.blockquote), (1, 1, 1));
        assert_eq!(c.headings, [1, 1, 0, 0, 0, 1]);
        let m = c.metrics();
        let named: Vec<(&str, f64)> = VARIABLES.iter().copied().zip(m.values()).collect();
        assert_eq!(
            named,
            [
                ("complex_words", 1.0),
                ("long_words", 1.0),
                ("paragraphs", 3.0),
                ("sentences", 3.0),
                ("characters", 22.0),
                ("words", 6.0),
                ("polysyllabic_words", 1.0),
                ("syllables", 9.0),
                ("pre", 1.0),
                ("list", 1.0),
                ("blockquote", 1.0),
                ("heading_h1", 1.0),
                ("heading_h2", 1.0),
                ("heading_h3", 0.0),
                ("heading_h4", 0.0),
                ("heading_h5", 0.0),
                ("heading_h6", 1.0),
            ]
        );
        assert_eq!(m.get("heading_h2"), Some(1.0));
        assert_eq!(m.get("figure"), None);
    }
}
