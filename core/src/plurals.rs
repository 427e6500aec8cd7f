//! Plural forms: the CLDR categories a language's plural switch holds (`icu_plurals`, with
//! its compiled CLDR data), and gettext's `Plural-Forms` header read, checked and mapped onto them.
//!
//! A language's categories are every category its CLDR cardinal rule has, fractions
//! included: Russian `one few many other`, Arabic all six, Japanese `other`, and French,
//! Spanish, Italian and Portuguese `one many other` (CLDR's `many` is a round million: "1 000
//! 000 de fichiers"). A plural *needs* those the rule gives an integer up to 1000 or a
//! fraction ([`Rules::needed`]): all of them, but for that `many`, which a translation may
//! have and need not (catalogs and translators rarely write it; a round million then reads
//! the `other` form). A tag takes CLDR's own fallback (`pt-BR` → `pt`); one whose language
//! subtag is not two or three letters, or is private use (`qaa`–`qtz`, as the pseudo-locale
//! `qps-ploc`), has none, and its plurals are not checked.
//!
//! A PO file's `plural=` is a C expression over `n` in gettext's grammar (`?:`, `||`, `&&`,
//! `== != < <= > >=`, `+ - * / %`, `!`, unary `-`, parentheses, decimal numbers), parsed into
//! a tree of at most [`MAX_NODES`] nodes and [`MAX_DEPTH`] deep and evaluated over n = 0 to
//! 1000 (the range `msgfmt -c` checks) with wrapping unsigned arithmetic; a division by zero
//! is a fault of the header. Form `i` is named by the CLDR category most of the n it serves
//! select (n to 1000 and `LARGE`), in canonical order on a tie; a category two forms serve
//! goes to the one serving more n; a form no n reaches takes the language's first category
//! no form took (Django's Russian `msgstr[3]` is `other`); any other form is `form{i}`
//! (Django's French `msgstr[1]`, for a round million, which CLDR 37 calls `other`).

use icu_locale_core::Locale;
use icu_plurals::{PluralCategory, PluralRules};

use crate::model::PLURAL_CATEGORIES;

/// The deepest a `plural=` expression may nest.
pub const MAX_DEPTH: usize = 64;
/// The most nodes a `plural=` expression may have.
pub const MAX_NODES: usize = 1000;
/// The n a `plural=` expression is evaluated for: 0 to this (as `msgfmt -c`).
pub const EVAL_MAX: u64 = 1000;

/// Counts past [`EVAL_MAX`] a formula is also read at to name its forms (Django's French
/// `msgstr[1]` serves a round million alone).
const LARGE: &[u64] = &[
    10_000,
    100_000,
    1_000_000,
    2_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// Fractions a language's rule is asked about for [`Rules::needed`].
const FRACTIONS: &[&str] = &[
    "0.5", "1.5", "2.5", "5.5", "0.1", "1.1", "2.1", "10.5", "100.5",
];

fn category_name(c: PluralCategory) -> &'static str {
    match c {
        PluralCategory::Zero => "zero",
        PluralCategory::One => "one",
        PluralCategory::Two => "two",
        PluralCategory::Few => "few",
        PluralCategory::Many => "many",
        PluralCategory::Other => "other",
    }
}

/// A language's CLDR cardinal rule (or ordinal rule, [`Rules::ordinal_of`]).
pub struct Rules(PluralRules, bool);

impl Rules {
    /// The rule of a BCP 47 tag or gettext locale (`pt-BR`, `sr@latin`, `zh_Hans`), by CLDR's
    /// own fallback (`pt-BR` → `pt`); `None` for a tag that does not parse or whose language
    /// subtag is not two or three letters or is private use (`target`, `qps-ploc`).
    pub fn of(tag: &str) -> Option<Rules> {
        Self::locale(tag).and_then(|l| {
            PluralRules::try_new_cardinal((&l).into())
                .ok()
                .map(|r| Rules(r, false))
        })
    }

    /// The ordinal rule of a tag (`1st 2nd 3rd 4th`: English `one two few other`), as [`Rules::of`]
    /// reads it. Its forms are those integers take: an ordinal has no fraction.
    pub fn ordinal_of(tag: &str) -> Option<Rules> {
        Self::locale(tag).and_then(|l| {
            PluralRules::try_new_ordinal((&l).into())
                .ok()
                .map(|r| Rules(r, true))
        })
    }

    fn locale(tag: &str) -> Option<Locale> {
        let tag = tag
            .split(['@', '.'])
            .next()
            .unwrap_or_default()
            .replace('_', "-");
        let language = tag.split('-').next().unwrap_or_default();
        let lower = language.to_ascii_lowercase();
        let private = lower.len() == 3 && ("qaa"..="qtz").contains(&lower.as_str());
        if !(2..=3).contains(&language.len())
            || !language.bytes().all(|b| b.is_ascii_alphabetic())
            || private
        {
            return None;
        }
        tag.parse::<Locale>()
            .or_else(|_| language.parse::<Locale>())
            .ok()
    }

    /// The category of an integer.
    pub fn select(&self, n: u64) -> &'static str {
        category_name(self.0.category_for(n))
    }

    /// The categories a plural needs: those the rule gives an integer from 0 to
    /// `EVAL_MAX` or a fraction of `FRACTIONS`, canonical order. Not CLDR's `many` of
    /// French, Spanish, Italian and Portuguese, which only round millions take.
    pub fn needed(&self) -> Vec<&'static str> {
        let mut used: Vec<&'static str> = (0..=EVAL_MAX).map(|n| self.select(n)).collect();
        for f in FRACTIONS.iter().filter(|_| !self.1) {
            if let Ok(d) = fixed_decimal::Decimal::try_from_str(f) {
                used.push(category_name(self.0.category_for(&d)));
            }
        }
        PLURAL_CATEGORIES
            .iter()
            .copied()
            .filter(|c| used.contains(c))
            .collect()
    }

    /// Every category the language has, in canonical order (`one few many other`).
    pub fn categories(&self) -> Vec<&'static str> {
        let used: Vec<&'static str> = self.0.categories().map(category_name).collect();
        PLURAL_CATEGORIES
            .iter()
            .copied()
            .filter(|c| used.contains(c))
            .collect()
    }
}

/// The CLDR categories of a language, canonical order; `None` when it names none.
pub fn categories(tag: &str) -> Option<Vec<&'static str>> {
    Rules::of(tag).map(|r| r.categories())
}

/// The categories a plural in a language needs ([`Rules::needed`]) and every one it has;
/// `None` when the tag names no language.
pub fn needed_and_all(tag: &str) -> Option<(Vec<&'static str>, Vec<&'static str>)> {
    Rules::of(tag).map(|r| (r.needed(), r.categories()))
}

/// [`needed_and_all`] of the language's ordinal rule (`selectordinal`, i18next `_ordinal_`).
pub fn ordinal_needed_and_all(tag: &str) -> Option<(Vec<&'static str>, Vec<&'static str>)> {
    Rules::ordinal_of(tag).map(|r| (r.needed(), r.categories()))
}

/// A `Plural-Forms` header value read: `nplurals=N; plural=EXPR;`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PluralForms {
    /// `nplurals`, when it is a number of at most three digits (a POT's `INTEGER` is not).
    pub nplurals: Option<usize>,
    /// The parsed `plural=` expression, when there is one that parses.
    pub expr: Option<Expr>,
    /// Why the header cannot be used as written (a formula that does not parse, a formula
    /// that gives a form `nplurals` does not have, or divides by zero); `None` when sound.
    pub fault: Option<String>,
}

impl PluralForms {
    /// Reads a `Plural-Forms` value. Never fails: what is wrong is the `fault`.
    pub fn parse(value: &str) -> PluralForms {
        let nplurals = field(value, "nplurals").and_then(|v| {
            let digits = v.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 || digits > 3 {
                return None;
            }
            v.get(..digits)?.parse().ok()
        });
        let mut out = PluralForms {
            nplurals,
            expr: None,
            fault: None,
        };
        let Some(formula) = field(value, "plural") else {
            return out;
        };
        let formula = formula.split(';').next().unwrap_or_default();
        match Parser::parse(formula) {
            Ok(expr) => out.expr = Some(expr),
            Err(why) => {
                out.fault = Some(format!("its formula `{}` {why}", formula.trim()));
                return out;
            }
        }
        if let (Some(n), Some(expr)) = (out.nplurals, &out.expr) {
            out.fault = range_fault(expr, n);
        }
        out
    }

    /// The form of `n`; `None` when the formula faults or there is none.
    pub fn form(&self, n: u64) -> Option<u64> {
        self.expr.as_ref()?.eval(n)
    }

    /// The branch names of `forms` forms (`msgstr[0]` first) for `language`: by the formula
    /// (module docs), else the language's categories when there are exactly `forms` of them,
    /// else `other` for one form, `one other` for two, `form{i}` past them.
    pub fn names(&self, language: Option<&str>, forms: usize) -> Vec<String> {
        let rules = language.and_then(Rules::of);
        let mut names: Vec<Option<&'static str>> = vec![None; forms];
        match (&rules, &self.expr, &self.fault) {
            (Some(rules), Some(expr), None) => {
                let mut votes = vec![[0u32; 6]; forms];
                for n in (0..=EVAL_MAX).chain(LARGE.iter().copied()) {
                    let (Some(form), cat) = (expr.eval(n), rules.select(n)) else {
                        continue;
                    };
                    let Some(v) = usize::try_from(form).ok().and_then(|f| votes.get_mut(f)) else {
                        continue;
                    };
                    if let Some(i) = PLURAL_CATEGORIES.iter().position(|c| *c == cat)
                        && let Some(slot) = v.get_mut(i)
                    {
                        *slot += 1;
                    }
                }
                // Each form's category, and how many n it serves there.
                let best: Vec<Option<(usize, u32)>> = votes
                    .iter()
                    .map(|v| {
                        (0..6)
                            .rev()
                            .map(|c| (c, v.get(c).copied().unwrap_or(0)))
                            .max_by_key(|&(_, count)| count)
                            .filter(|&(_, count)| count > 0)
                    })
                    .collect();
                // A category two forms serve goes to the one that serves more n (the first on
                // a tie).
                for (i, b) in best.iter().enumerate() {
                    let Some((c, count)) = *b else { continue };
                    let beaten = best.iter().enumerate().any(|(j, other)| {
                        matches!(*other, Some((oc, ocount))
                            if oc == c && (ocount > count || (ocount == count && j < i)))
                    });
                    if !beaten {
                        names[i] = PLURAL_CATEGORIES.get(c).copied();
                    }
                }
                // A form no n reaches takes the first category no form took.
                let left: Vec<&'static str> = rules
                    .categories()
                    .into_iter()
                    .filter(|c| !names.contains(&Some(c)))
                    .collect();
                let mut left = left.into_iter();
                for (i, b) in best.iter().enumerate() {
                    if b.is_none() {
                        names[i] = left.next();
                    }
                }
            }
            _ => {
                let fallback: Vec<&'static str> = match rules.map(|r| r.categories()) {
                    Some(cats) if cats.len() == forms => cats,
                    _ if forms == 1 => vec!["other"],
                    _ if forms == 2 => vec!["one", "other"],
                    _ => Vec::new(),
                };
                for (slot, name) in names.iter_mut().zip(fallback) {
                    *slot = Some(name);
                }
            }
        }
        names
            .into_iter()
            .enumerate()
            .map(|(i, n)| n.map_or_else(|| format!("form{i}"), str::to_owned))
            .collect()
    }
}

/// The text after `name=` in a header value (`nplurals=3; plural=…`), trimmed at the start.
fn field<'v>(value: &'v str, name: &str) -> Option<&'v str> {
    let mut rest = value;
    loop {
        let at = rest.find(name)?;
        let before = rest.get(..at).unwrap_or_default();
        let after = rest.get(at + name.len()..).unwrap_or_default().trim_start();
        let starts = before
            .chars()
            .next_back()
            .is_none_or(|c| c == ';' || c.is_whitespace());
        if starts && let Some(v) = after.strip_prefix('=') {
            return Some(v.trim_start());
        }
        rest = rest.get(at + name.len()..).unwrap_or_default();
    }
}

/// What is wrong with a formula over n = 0..=[`EVAL_MAX`] for `nplurals` forms: a form it
/// gives that is not below `nplurals`, or a division by zero.
fn range_fault(expr: &Expr, nplurals: usize) -> Option<String> {
    let mut largest: Option<(u64, u64)> = None;
    for n in 0..=EVAL_MAX {
        let Some(form) = expr.eval(n) else {
            return Some(format!("its formula divides by zero for n = {n}"));
        };
        if largest.is_none_or(|(f, _)| form > f) {
            largest = Some((form, n));
        }
    }
    match largest {
        Some((form, n)) if usize::try_from(form).map_or(true, |f| f >= nplurals) => Some(format!(
            "nplurals={nplurals} but its formula gives form {form} (for n = {n}), so \
                 `msgstr[{form}]` has no place: make nplurals {} or correct the formula",
            form.saturating_add(1)
        )),
        _ if nplurals == 0 => Some("nplurals=0: a message needs at least one form".into()),
        _ => None,
    }
}

/// A `plural=` expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    N,
    Num(u64),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    Bin(Op, Box<Expr>, Box<Expr>),
    If(Box<Expr>, Box<Expr>, Box<Expr>),
}

/// A binary operator of a `plural=` expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

impl Expr {
    /// The value for `n` (C's unsigned long arithmetic, wrapping); `None` on a division
    /// by zero. The tree is at most [`MAX_DEPTH`] deep, so the recursion is bounded.
    pub fn eval(&self, n: u64) -> Option<u64> {
        Some(match self {
            Expr::N => n,
            Expr::Num(v) => *v,
            Expr::Not(e) => u64::from(e.eval(n)? == 0),
            Expr::Neg(e) => e.eval(n)?.wrapping_neg(),
            Expr::If(c, a, b) => {
                if c.eval(n)? != 0 {
                    a.eval(n)?
                } else {
                    b.eval(n)?
                }
            }
            Expr::Bin(Op::Or, a, b) => u64::from(a.eval(n)? != 0 || b.eval(n)? != 0),
            Expr::Bin(Op::And, a, b) => u64::from(a.eval(n)? != 0 && b.eval(n)? != 0),
            Expr::Bin(op, a, b) => {
                let (x, y) = (a.eval(n)?, b.eval(n)?);
                match op {
                    Op::Eq => u64::from(x == y),
                    Op::Ne => u64::from(x != y),
                    Op::Lt => u64::from(x < y),
                    Op::Le => u64::from(x <= y),
                    Op::Gt => u64::from(x > y),
                    Op::Ge => u64::from(x >= y),
                    Op::Add => x.wrapping_add(y),
                    Op::Sub => x.wrapping_sub(y),
                    Op::Mul => x.wrapping_mul(y),
                    Op::Div => x.checked_div(y)?,
                    Op::Rem => x.checked_rem(y)?,
                    Op::Or | Op::And => return None,
                }
            }
        })
    }
}

/// A recursive-descent parser of gettext's plural grammar, bounded in depth and size.
struct Parser<'a> {
    bytes: &'a [u8],
    pos: usize,
    depth: usize,
    nodes: usize,
}

type Parsed = Result<Expr, String>;

impl<'a> Parser<'a> {
    fn parse(text: &'a str) -> Parsed {
        let mut p = Parser {
            bytes: text.as_bytes(),
            pos: 0,
            depth: 0,
            nodes: 0,
        };
        let e = p.ternary()?;
        p.ws();
        if p.pos < p.bytes.len() {
            return Err(format!("has `{}` where it should end", p.rest()));
        }
        Ok(e)
    }

    fn rest(&self) -> String {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        String::from_utf8_lossy(rest).chars().take(16).collect()
    }

    fn ws(&mut self) {
        while self
            .bytes
            .get(self.pos)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.pos += 1;
        }
    }

    fn eat(&mut self, token: &str) -> bool {
        self.ws();
        if self
            .bytes
            .get(self.pos..)
            .is_some_and(|r| r.starts_with(token.as_bytes()))
        {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn node(&mut self, e: Expr) -> Parsed {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(format!("is longer than {MAX_NODES} terms"));
        }
        Ok(e)
    }

    fn enter(&mut self) -> Result<(), String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nests deeper than {MAX_DEPTH}"));
        }
        Ok(())
    }

    fn ternary(&mut self) -> Parsed {
        self.enter()?;
        let cond = self.binary(0)?;
        let out = if self.eat("?") {
            let a = self.ternary()?;
            if !self.eat(":") {
                return Err(format!("lacks the `:` of a `?` (found `{}`)", self.rest()));
            }
            let b = self.ternary()?;
            self.node(Expr::If(Box::new(cond), Box::new(a), Box::new(b)))?
        } else {
            cond
        };
        self.depth -= 1;
        Ok(out)
    }

    /// Binary operators by precedence level, loosest first.
    fn binary(&mut self, level: usize) -> Parsed {
        const LEVELS: &[&[(&str, Op)]] = &[
            &[("||", Op::Or)],
            &[("&&", Op::And)],
            &[("==", Op::Eq), ("!=", Op::Ne)],
            &[("<=", Op::Le), (">=", Op::Ge), ("<", Op::Lt), (">", Op::Gt)],
            &[("+", Op::Add), ("-", Op::Sub)],
            &[("*", Op::Mul), ("/", Op::Div), ("%", Op::Rem)],
        ];
        let Some(ops) = LEVELS.get(level) else {
            return self.unary();
        };
        let mut left = self.binary(level + 1)?;
        'more: loop {
            for (token, op) in *ops {
                if self.eat(token) {
                    let right = self.binary(level + 1)?;
                    left = self.node(Expr::Bin(*op, Box::new(left), Box::new(right)))?;
                    continue 'more;
                }
            }
            break;
        }
        Ok(left)
    }

    fn unary(&mut self) -> Parsed {
        self.enter()?;
        let out = if self.eat("!") {
            let e = self.unary()?;
            self.node(Expr::Not(Box::new(e)))?
        } else if self.eat("-") {
            let e = self.unary()?;
            self.node(Expr::Neg(Box::new(e)))?
        } else if self.eat("(") {
            let e = self.ternary()?;
            if !self.eat(")") {
                return Err(format!("lacks a `)` (found `{}`)", self.rest()));
            }
            e
        } else if self.eat("n") {
            self.node(Expr::N)?
        } else {
            self.ws();
            let digits = self
                .bytes
                .get(self.pos..)
                .unwrap_or_default()
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if digits == 0 {
                return Err(if self.pos >= self.bytes.len() {
                    "ends where a number or `n` should come".into()
                } else {
                    format!("has `{}` where a number or `n` should come", self.rest())
                });
            }
            let text = self
                .bytes
                .get(self.pos..self.pos + digits)
                .unwrap_or_default();
            self.pos += digits;
            let value = std::str::from_utf8(text)
                .ok()
                .and_then(|t| t.parse::<u64>().ok())
                .ok_or_else(|| "has a number too large".to_owned())?;
            self.node(Expr::Num(value))?
        };
        self.depth -= 1;
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RU3: &str = "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);";
    const RU4_DJANGO: &str = "nplurals=4; plural=(n % 10 == 1 && n % 100 != 11 ? 0 : n % 10 >= 2 && n % 10 <= 4 && (n % 100 < 12 || n % 100 > 14) ? 1 : n % 10 == 0 || (n % 10 >= 5 && n % 10 <= 9) || (n % 100 >= 11 && n % 100 <= 14)? 2 : 3);";
    const AR: &str = "nplurals=6; plural=n==0 ? 0 : n==1 ? 1 : n==2 ? 2 : n%100>=3 && n%100<=10 ? 3 : n%100>=11 && n%100<=99 ? 4 : 5;";

    #[test]
    fn cldr_categories_of_a_language_come_from_the_crate() {
        assert_eq!(
            categories("ru").unwrap_or_default(),
            ["one", "few", "many", "other"]
        );
        assert_eq!(
            categories("ar").unwrap_or_default(),
            ["zero", "one", "two", "few", "many", "other"]
        );
        assert_eq!(categories("ja").unwrap_or_default(), ["other"]);
        assert_eq!(categories("en-US").unwrap_or_default(), ["one", "other"]);
        assert_eq!(
            categories("pt_BR").unwrap_or_default(),
            ["one", "many", "other"]
        );
        assert_eq!(
            categories("sr@latin").unwrap_or_default(),
            ["one", "few", "other"]
        );
        assert_eq!(categories("target"), None);
        let needed = |t: &str| needed_and_all(t).map(|(n, _)| n).unwrap_or_default();
        assert_eq!(needed("fr"), ["one", "other"]);
        assert_eq!(needed("ru"), ["one", "few", "many", "other"]);
        assert_eq!(needed("pl"), ["one", "few", "many", "other"]);
        assert_eq!(needed("ar"), ["zero", "one", "two", "few", "many", "other"]);
        assert_eq!(categories("qps-ploc"), None);
    }

    #[test]
    fn a_po_formula_names_each_form_by_the_category_it_serves() {
        let ru = PluralForms::parse(RU3);
        assert_eq!(ru.fault, None);
        assert_eq!(ru.names(Some("ru"), 3), ["one", "few", "many"]);
        // Django's fourth Russian form is reached by no integer: it is `other`.
        let django = PluralForms::parse(RU4_DJANGO);
        assert_eq!(django.fault, None);
        assert_eq!(django.names(Some("ru"), 4), ["one", "few", "many", "other"]);
        let ar = PluralForms::parse(AR);
        assert_eq!(
            ar.names(Some("ar"), 6),
            ["zero", "one", "two", "few", "many", "other"]
        );
        let fr = PluralForms::parse("nplurals=2; plural=(n > 1);");
        assert_eq!(fr.names(Some("fr"), 2), ["one", "other"]);
        let django_fr = PluralForms::parse(
            "nplurals=3; plural=(n == 0 || n == 1) ? 0 : n != 0 && n % 1000000 == 0 ? 1 : 2;",
        );
        assert_eq!(django_fr.names(Some("fr"), 3), ["one", "many", "other"]);
        // A form past nplurals, and no language: `formN`.
        assert_eq!(ru.names(Some("ru"), 4)[3], "other");
        assert_eq!(ru.names(None, 3), ["form0", "form1", "form2"]);
        assert_eq!(ru.names(None, 2), ["one", "other"]);
        assert_eq!(PluralForms::parse("").names(None, 2), ["one", "other"]);
    }

    #[test]
    fn a_header_that_disagrees_with_itself_is_a_fault() {
        let two = PluralForms::parse(&RU3.replace("nplurals=3", "nplurals=2"));
        let fault = two.fault.unwrap_or_default();
        assert!(
            fault.contains("nplurals=2 but its formula gives form 2"),
            "{fault}"
        );
        let div = PluralForms::parse("nplurals=2; plural=n/(n-n);");
        assert!(div.fault.unwrap_or_default().contains("divides by zero"));
        let bad = PluralForms::parse("nplurals=2; plural=n >;");
        assert!(bad.fault.unwrap_or_default().contains("should come"));
        let bad = PluralForms::parse("nplurals=2; plural=(n != 1;");
        assert!(bad.fault.unwrap_or_default().contains("lacks a `)`"));
        assert_eq!(
            PluralForms::parse("nplurals=INTEGER; plural=EXPRESSION;").nplurals,
            None
        );
    }

    #[test]
    fn a_hostile_formula_is_bounded() {
        let deep = format!(
            "nplurals=2; plural={}n{};",
            "(".repeat(10_000),
            ")".repeat(10_000)
        );
        assert!(
            PluralForms::parse(&deep)
                .fault
                .unwrap_or_default()
                .contains("nests deeper")
        );
        let long = format!("nplurals=2; plural={}0;", "n+".repeat(5000));
        let fault = PluralForms::parse(&long).fault.unwrap_or_default();
        assert!(
            fault.contains("longer than") || fault.contains("nests deeper"),
            "{fault}"
        );
        let negs = format!("nplurals=2; plural={}n;", "-".repeat(10_000));
        assert!(PluralForms::parse(&negs).fault.is_some());
        // Wrapping arithmetic, no overflow panic.
        let big = PluralForms::parse("nplurals=2; plural=18446744073709551615 * n + 99999 > 3;");
        assert_eq!(big.fault, None);
        assert!(
            PluralForms::parse("nplurals=2; plural=99999999999999999999999;")
                .fault
                .is_some()
        );
    }

    #[test]
    fn any_formula_text_parses_or_faults_without_panicking() {
        const ALPHABET: &[u8] = b"n0123456789()?:|&=!<>+-*/% ;";
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..20_000 {
            let mut text = String::from("nplurals=3; plural=");
            let len = (seed % 40) as usize;
            for _ in 0..len {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                text.push(char::from(
                    ALPHABET[(seed % ALPHABET.len() as u64) as usize],
                ));
            }
            let forms = PluralForms::parse(&text);
            let _ = forms.names(Some("ru"), 3);
            let _ = forms.form(7);
        }
    }
}
