//! JSON string escapes read at a byte offset (`\n`, `\u00e9`, a surrogate pair joined), for the
//! reader's scanner and the splice, which decode strings the same way.

/// The four hex digits at `at`, as a number.
pub(crate) fn hex4_at(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    let mut value = 0;
    for &b in digits {
        value = value * 16 + char::from(b).to_digit(16)?;
    }
    Some(value)
}

/// The escape at `at` (a backslash): its character and length, a surrogate pair joined into
/// one character (a lone surrogate reads as U+FFFD); `None` for an escape JSON refuses.
pub(crate) fn escape_at(bytes: &[u8], at: usize) -> Option<(char, usize)> {
    let c = match bytes.get(at + 1)? {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        b'u' => {
            let unit = hex4_at(bytes, at + 2)?;
            if (0xD800..0xDC00).contains(&unit)
                && bytes.get(at + 6) == Some(&b'\\')
                && bytes.get(at + 7) == Some(&b'u')
                && let Some(low) = hex4_at(bytes, at + 8)
                && (0xDC00..0xE000).contains(&low)
            {
                let code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
                return Some((char::from_u32(code).unwrap_or('\u{fffd}'), 12));
            }
            return Some((char::from_u32(unit).unwrap_or('\u{fffd}'), 6));
        }
        _ => return None,
    };
    Some((c, 2))
}
