//! What the functional checks know of a target language: its punctuation, how English
//! punctuation is written in it (`punctranslate`), its digits and its accelerator letters.
//! The data is translate-toolkit's (`translate/lang/*.py`), read from its language modules.
//!
//! A tag is matched by its first subtag, as translate-toolkit falls back from `pt_BR` to `pt`
//! (the one regional module it has, `pt_BR`'s accelerator letters, is kept). Arabic's and
//! N'Ko's reversal of curly quotes is left out: it only moves quotes, which no check here
//! compares.

/// Punctuation common in English and in most languages written in Latin script.
const COMMON_PUNC: &str = ".,;:!?-@#$%^*_()[]{}/\\'`\"<>";
const QUOTES: &str = "‘’‛“”„‟′″‴‵‶‷‹›«»";
const INVERTED: &str = "¿¡";
const RTL: &str = "،؟؛÷";
const CJK: &str = "。、，；！？「」『』【】";
const INDIC: &str = "।॥॰";
const ETHIOPIC: &str = "።፤፣";
const MISC: &str = "…±°¹²³·©®×£¥€";
/// Every mark that can end a sentence, in the languages translate-toolkit knows.
const SENTENCE_END: &str = ".!?…։؟।。！？።\u{06d4}";

/// What a check needs of one target language.
#[derive(Debug, Clone, Copy)]
pub struct Lang {
    /// The first subtag, lowercase (`fr`, `zh`).
    pub code: &'static str,
    /// What `startpunc` strips from the start of a text.
    punctuation: Punctuation,
    /// What ends a sentence (with `:`, what `endpunc` compares).
    pub sentence_end: &'static str,
    /// English punctuation → this language's, applied in order.
    punc_map: &'static [(&'static str, &'static str)],
    /// Native digits → ASCII.
    digits: &'static [char; 10],
    /// The letters an accelerator may mark; `None` for any letter without a diacritic.
    pub accel_letters: Option<&'static str>,
    /// Extra rules after the map: French guillemets, Spanish inverted marks.
    extra: Extra,
    /// translate-toolkit's `ignoretests` for this language that name a check here.
    pub ignores_accelerators: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Punctuation {
    /// Every kind of punctuation: the default.
    All,
    /// Latin script only (Afrikaans), with `extra` (Armenian, Khmer).
    Latin(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Extra {
    None,
    /// `"a"` → `« a »` (French, Vietnamese, Persian); French also `http\u{a0}://`.
    Guillemets {
        french: bool,
    },
    /// `¿…?` and `¡…!` at the start (Spanish).
    Inverted,
}

const NO_DIGITS: &[char; 10] = &['0', '1', '2', '3', '4', '5', '6', '7', '8', '9'];
const ARABIC_DIGITS: &[char; 10] = &['٠', '١', '٢', '٣', '٤', '٥', '٦', '٧', '٨', '٩'];
const PERSIAN_DIGITS: &[char; 10] = &['۰', '۱', '۲', '۳', '۴', '۵', '۶', '۷', '۸', '۹'];
const BENGALI_DIGITS: &[char; 10] = &['০', '১', '২', '৩', '৪', '৫', '৬', '৭', '৮', '৯'];

const DEFAULT: Lang = Lang {
    code: "",
    punctuation: Punctuation::All,
    sentence_end: SENTENCE_END,
    punc_map: &[],
    digits: NO_DIGITS,
    accel_letters: None,
    extra: Extra::None,
    ignores_accelerators: false,
};

const FRENCH_MAP: &[(&str, &str)] = &[
    (":", "\u{a0}:"),
    (";", "\u{a0};"),
    ("!", "\u{a0}!"),
    ("?", "\u{a0}?"),
    ("#", "\u{a0}#"),
];
const VIETNAMESE_MAP: &[(&str, &str)] = &[(":", " :"), (";", " ;"), ("!", " !"), ("#", " #")];
const CHINESE_MAP: &[(&str, &str)] = &[
    (". ", "。"),
    ("; ", "；"),
    (": ", "："),
    ("! ", "！"),
    ("? ", "？"),
    (".\n", "。\n"),
    (";\n", "；\n"),
    (":\n", "：\n"),
    ("!\n", "！\n"),
    ("?\n", "？\n"),
    ("% ", "%"),
];
const JAPANESE_MAP: &[(&str, &str)] =
    &[(". ", "。"), (", ", "、"), (".\n", "。\n"), (",\n", "、\n")];
const ARABIC_MAP: &[(&str, &str)] = &[(",", "،"), (";", "؛"), ("?", "؟")];
const URDU_MAP: &[(&str, &str)] = &[(".", "۔"), (",", "،"), (";", "؛"), ("?", "؟")];
const NKO_MAP: &[(&str, &str)] = &[(",", "߸"), (";", "؛"), ("?", "؟"), ("!", "߹")];
const DANDA_MAP: &[(&str, &str)] = &[(". ", "। "), (".\n", "।\n")];
const AMHARIC_MAP: &[(&str, &str)] = &[(".", "።"), (";", "፤"), (",", "፣")];
const GREEK_MAP: &[(&str, &str)] = &[(";", "·"), ("?", ";")];
const ARMENIAN_MAP: &[(&str, &str)] = &[(".", "։"), (":", "՝"), ("!", "՜"), ("?", "՞")];
const KHMER_MAP: &[(&str, &str)] = &[
    (".", "\u{a0}។"),
    (":", "\u{a0}៖"),
    ("!", "\u{a0}!"),
    ("?", "\u{a0}?"),
];
const BURMESE_MAP: &[(&str, &str)] = &[(".", "။")];
const NEPALI_MAP: &[(&str, &str)] = &[(".", " ।"), ("?", " ?")];
const THAI_MAP: &[(&str, &str)] = &[(". ", " ")];

/// The language of a BCP 47 tag or a gettext code (`fr`, `pt-BR`, `zh_Hans`, `sr@latin`).
pub fn of(tag: &str) -> Lang {
    let lower = tag.to_ascii_lowercase().replace(['_', '@'], "-");
    let code = lower.split('-').next().unwrap_or_default();
    match code {
        "fr" => Lang {
            code: "fr",
            punc_map: FRENCH_MAP,
            accel_letters: Some("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890éÉ"),
            extra: Extra::Guillemets { french: true },
            ..DEFAULT
        },
        "vi" => Lang {
            code: "vi",
            punc_map: VIETNAMESE_MAP,
            extra: Extra::Guillemets { french: false },
            ..DEFAULT
        },
        "es" => Lang {
            code: "es",
            extra: Extra::Inverted,
            ..DEFAULT
        },
        "zh" => Lang {
            code: "zh",
            sentence_end: "。！？!?…",
            punc_map: CHINESE_MAP,
            ..DEFAULT
        },
        "ja" => Lang {
            code: "ja",
            sentence_end: "。｡！？!?…",
            punc_map: JAPANESE_MAP,
            ..DEFAULT
        },
        "ar" => Lang {
            code: "ar",
            punc_map: ARABIC_MAP,
            digits: ARABIC_DIGITS,
            ..DEFAULT
        },
        "fa" => Lang {
            code: "fa",
            punc_map: ARABIC_MAP,
            // translate-toolkit reads both Arabic-Indic and Extended Arabic-Indic digits.
            digits: PERSIAN_DIGITS,
            extra: Extra::Guillemets { french: false },
            ..DEFAULT
        },
        "ug" => Lang {
            code: "ug",
            punc_map: ARABIC_MAP,
            ..DEFAULT
        },
        "ur" => Lang {
            code: "ur",
            punc_map: URDU_MAP,
            ..DEFAULT
        },
        "nqo" => Lang {
            code: "nqo",
            punc_map: NKO_MAP,
            ..DEFAULT
        },
        _ => of_south_asian_and_beyond(code, &lower),
    }
}

/// [`of`] for the languages of South Asia and those after them in translate-toolkit's list.
fn of_south_asian_and_beyond(code: &str, lower: &str) -> Lang {
    match code {
        "bn" => Lang {
            code: "bn",
            sentence_end: "।!?…",
            punc_map: DANDA_MAP,
            digits: BENGALI_DIGITS,
            ..DEFAULT
        },
        "as" => Lang {
            code: "as",
            digits: BENGALI_DIGITS,
            ..DEFAULT
        },
        "or" | "pa" => Lang {
            code: if code == "or" { "or" } else { "pa" },
            sentence_end: "।!?…",
            punc_map: DANDA_MAP,
            ..DEFAULT
        },
        "ne" => Lang {
            code: "ne",
            sentence_end: "।!?…",
            punc_map: NEPALI_MAP,
            ignores_accelerators: true,
            ..DEFAULT
        },
        "am" => Lang {
            code: "am",
            sentence_end: "።!?…",
            punc_map: AMHARIC_MAP,
            ..DEFAULT
        },
        "el" => Lang {
            code: "el",
            sentence_end: ".!;…",
            punc_map: GREEK_MAP,
            accel_letters: Some(concat!(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890",
                "αβγδεζηθικλμνξοπρστυφχψωΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΣΤΥΦΧΨΩ"
            )),
            ..DEFAULT
        },
        "hy" => Lang {
            code: "hy",
            punctuation: Punctuation::Latin("։՝՜՞"),
            sentence_end: "։՝՜…",
            punc_map: ARMENIAN_MAP,
            ..DEFAULT
        },
        "km" => Lang {
            code: "km",
            punctuation: Punctuation::Latin("។៕៖៘"),
            sentence_end: "!?…។៕៘",
            punc_map: KHMER_MAP,
            ..DEFAULT
        },
        "af" => Lang {
            code: "af",
            punctuation: Punctuation::Latin(""),
            sentence_end: ".!?…",
            ..DEFAULT
        },
        "my" => Lang {
            code: "my",
            punc_map: BURMESE_MAP,
            ..DEFAULT
        },
        "th" => Lang {
            code: "th",
            punc_map: THAI_MAP,
            ..DEFAULT
        },
        _ => of_nordic_and_beyond(code, lower),
    }
}

/// [`of`] for the Nordic languages and those after them in translate-toolkit's list.
fn of_nordic_and_beyond(code: &str, lower: &str) -> Lang {
    match code {
        "da" => Lang {
            code: "da",
            accel_letters: Some(concat!(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890",
                "æøåéÆØÅÉ"
            )),
            ..DEFAULT
        },
        "fi" => Lang {
            code: "fi",
            accel_letters: Some(concat!(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890",
                "äöÄÖ"
            )),
            ..DEFAULT
        },
        "sv" => Lang {
            code: "sv",
            accel_letters: Some(concat!(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890",
                "åäöÅÄÖ"
            )),
            ..DEFAULT
        },
        "pl" => Lang {
            code: "pl",
            accel_letters: Some(concat!(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890",
                "ąćęłńóśźżĄĆĘŁŃÓŚŹŻ"
            )),
            ..DEFAULT
        },
        "tr" => Lang {
            code: "tr",
            accel_letters: Some(concat!(
                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ1234567890",
                "ığüşöçĞÜŞİÖÇ"
            )),
            ..DEFAULT
        },
        "pt" if lower.starts_with("pt-br") => Lang {
            code: "pt",
            // No `w` and `W`, as translate-toolkit has it.
            accel_letters: Some("ABCDEFGHIJKLMNOPQRSTUVXYZabcdefghijklmnopqrstuvxyz1234567890"),
            ..DEFAULT
        },
        _ => DEFAULT,
    }
}

/// A quotation mark of any language (`"`, `'`, `` ` ``, `“`, `«`, `„`…).
pub fn is_quote(c: char) -> bool {
    matches!(c, '"' | '\'' | '`') || QUOTES.contains(c)
}

impl Lang {
    /// Whether `c` is punctuation to `startpunc` in this language.
    pub fn is_punctuation(&self, c: char) -> bool {
        let latin = COMMON_PUNC.contains(c) || QUOTES.contains(c) || MISC.contains(c);
        match self.punctuation {
            Punctuation::All => {
                latin
                    || INVERTED.contains(c)
                    || RTL.contains(c)
                    || CJK.contains(c)
                    || INDIC.contains(c)
                    || ETHIOPIC.contains(c)
            }
            Punctuation::Latin(extra) => latin || extra.contains(c),
        }
    }

    /// `text` with native digits written as ASCII ones.
    pub fn ascii_digits(&self, text: &str) -> String {
        if std::ptr::eq(self.digits, NO_DIGITS) {
            return text.to_owned();
        }
        text.chars()
            .map(|c| match self.digits.iter().position(|&d| d == c) {
                Some(n) => char::from(b'0' + n as u8),
                None => c,
            })
            .collect()
    }

    /// How the English punctuation of `text` is written in this language, as
    /// translate-toolkit's `punctranslate` has it: the language's map applied in order (a
    /// final `...` kept as written), a last mark that the map writes only before a space
    /// rewritten as it would be there (`Done.` → `Done。` in Japanese), then French
    /// guillemets or Spanish inverted marks.
    pub fn punctranslate(&self, text: &str) -> String {
        if text.is_empty() {
            return String::new();
        }
        let mut out = text.to_owned();
        if !self.punc_map.is_empty() {
            let ellipsis = out.ends_with("...");
            if ellipsis {
                out.truncate(out.len() - 3);
            }
            for (from, to) in self.punc_map {
                if out.contains(from) {
                    out = out.replace(from, to);
                }
            }
            if ellipsis {
                out.push_str("...");
            }
            let mut tail = out.chars().rev();
            if let Some(last) = tail.next() {
                let before = tail.next();
                let spaced = format!("{last} ");
                if let Some((_, to)) = self.punc_map.iter().find(|(from, _)| *from == spaced)
                    && before != Some(last)
                {
                    out.truncate(out.len() - last.len_utf8());
                    out.push_str(to.trim_end());
                }
            }
        }
        match self.extra {
            Extra::None => out,
            Extra::Guillemets { french } => {
                if french {
                    out = out.replace("\u{a0}://", "://");
                }
                guillemets(&out)
            }
            Extra::Inverted => inverted(&out),
        }
    }
}

/// translate-toolkit's `guillemets`: quotations in `"…"` (when the count is even), `` `…' ``
/// or `'…'` (when the count is even) and `“…”` become `« … »` with no-break spaces, except
/// a quote after `=` (an attribute's value).
fn guillemets(text: &str) -> String {
    let mut out = text.to_owned();
    if out.matches('"').count().is_multiple_of(2) {
        out = quote_pairs(&out, '"', '"');
    }
    let singles = out.matches('\'').count();
    if singles > 0 {
        if singles == out.matches('`').count() {
            out = quote_pairs(&out, '`', '\'');
        } else if singles.is_multiple_of(2) {
            out = quote_pairs(&out, '\'', '\'');
        }
    }
    quote_pairs(&out, '“', '”')
}

/// `(.|^)OPEN([^CLOSE]+)CLOSE` → `$1«\u{a0}$2\u{a0}»`, left to right, not overlapping; a
/// match whose prefix is `=` is left as it is (and consumed).
fn quote_pairs(text: &str, open: char, close: char) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len() + 8);
    // No quotation can end after the last closing mark: past it the text is copied, so an
    // opening mark with no close costs one step, not a scan to the end.
    let last_close = chars.iter().rposition(|&c| c == close);
    let mut i = 0;
    while i < chars.len() {
        if last_close.is_none_or(|l| i >= l) {
            out.extend(&chars[i..]);
            break;
        }
        // The regex's `(.|^)`: at the start the prefix may be empty, else it is one char
        // (which a newline cannot be: `.` does not match one).
        let (prefix, at) = if i == 0 && chars[0] == open {
            (None, 0)
        } else if chars[i] != '\n' && chars.get(i + 1) == Some(&open) {
            (Some(chars[i]), i + 1)
        } else {
            out.push(chars[i]);
            i += 1;
            continue;
        };
        let body_start = at + 1;
        let mut end = body_start;
        while end < chars.len() && chars[end] != close {
            end += 1;
        }
        if end >= chars.len() || end == body_start {
            // No match here: the regex moves on by one character.
            if let Some(p) = prefix {
                out.push(p);
                i += 1;
            } else {
                out.push(chars[0]);
                i = 1;
            }
            continue;
        }
        let body: String = chars[body_start..end].iter().collect();
        if let Some(p) = prefix {
            out.push(p);
        }
        if prefix == Some('=') {
            out.push(open);
            out.push_str(&body);
            out.push(close);
        } else {
            out.push_str("«\u{a0}");
            out.push_str(&body);
            out.push_str("\u{a0}»");
        }
        i = end + 1;
    }
    out
}

/// Spanish: a text whose first sentence ends with `?` or `!` starts with `¿` or `¡`.
fn inverted(text: &str) -> String {
    let first = first_sentence(text).trim();
    match first.chars().next_back() {
        Some('?') => format!("¿{text}"),
        Some('!') => format!("¡{text}"),
        _ => text.to_owned(),
    }
}

/// translate-toolkit's sentence pattern: up to the first sentence end followed by white space
/// and then something that is no lowercase letter or digit; the whole text when none.
fn first_sentence(text: &str) -> &str {
    let mut chars = text.char_indices().peekable();
    while let Some((_, c)) = chars.next() {
        if !SENTENCE_END.contains(c) {
            continue;
        }
        let mut end = None;
        while let Some(&(j, w)) = chars.peek() {
            if !w.is_whitespace() {
                break;
            }
            chars.next();
            end = Some(j + w.len_utf8());
        }
        let Some(end) = end else { continue };
        let next = text[end..].chars().next();
        if let Some(n) = next
            && !(n.is_ascii_lowercase() || ('а'..='џ').contains(&n) || n.is_ascii_digit())
        {
            return &text[..end];
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_is_written_the_target_language_s_way() {
        assert_eq!(of("fr").punctranslate("Header:"), "Header\u{a0}:");
        assert_eq!(of("fr-CA").punctranslate("See http://x"), "See http://x");
        assert_eq!(of("ja").punctranslate("Done."), "Done。");
        assert_eq!(of("ja").punctranslate("Wait..."), "Wait...");
        assert_eq!(of("zh_Hans").punctranslate("Name: "), "Name：");
        assert_eq!(of("es").punctranslate("Reload?"), "¿Reload?");
        assert_eq!(of("es").punctranslate("Stop! Now."), "¡Stop! Now.");
        assert_eq!(of("es").punctranslate("Go. Why?"), "Go. Why?");
        assert_eq!(of("de").punctranslate("Name:"), "Name:");
        assert_eq!(of("fr").punctranslate("Say \"hi\""), "Say «\u{a0}hi\u{a0}»");
        assert_eq!(of("fr").punctranslate("<a href=\"x\">"), "<a href=\"x\">");
        assert_eq!(of("ar").ascii_digits("٢٥ حرفًا"), "25 حرفًا");
        assert!(of("km").is_punctuation('។'));
        assert!(!of("af").is_punctuation('¿'));
        assert!(of("de").is_punctuation('¿'));
    }
}
