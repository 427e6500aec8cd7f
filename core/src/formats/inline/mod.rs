//! Inline codes inside one string value: the placeholder syntaxes (`%s`, `{name}`, `<b>`, …)
//! every key-value format splits out of its text, and ICU MessageFormat's plural and select.

pub mod icu;
pub mod placeholders;
