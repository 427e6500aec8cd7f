//! The text form of a `kapi.stats/v1` report: one line per file (`path  format  counts;
//! per language progress`), or `path:line:column: message` for a file that does not read
//! (and after its file's line, for a translation file that does not), then, when there is
//! more than one file, a line per format and per language, and the total when there is more
//! than one format.

use super::{Counts, EditionStats, Failure, FileStats, Report, Sum, TextCounts};

impl Report {
    /// The report as text, ending in a newline.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if let Some(remark) = &self.remark {
            out.push_str(remark);
            out.push('\n');
        }
        let path_width = self
            .files
            .iter()
            .map(|f| f.path.chars().count())
            .max()
            .unwrap_or(0)
            .min(60);
        let format_width = self.files.iter().map(|f| f.format.len()).max().unwrap_or(0);
        for file in &self.files {
            match &file.error {
                Some(failure) => out.push_str(&failure_line(failure)),
                None => out.push_str(&file_line(file, path_width, format_width)),
            }
            out.push('\n');
            for failure in file.editions.iter().filter_map(|e| e.error.as_ref()) {
                out.push_str(&failure_line(failure));
                out.push('\n');
            }
        }
        for note in &self.notes {
            out.push_str(note);
            out.push('\n');
        }
        if self.files.len() > 1 {
            out.push_str(&self.sums());
        }
        if self.files.is_empty() && self.remark.is_none() {
            out.push_str("no files to count\n");
        }
        out
    }

    /// The lines after the files: per format, per language, and the total.
    fn sums(&self) -> String {
        let width = self
            .formats
            .iter()
            .map(|f| f.format.len())
            .chain(self.languages.iter().map(|l| l.lang.len()))
            .chain(["total".len()])
            .max()
            .unwrap_or(0);
        let mut out = String::from("\n");
        for row in &self.formats {
            out.push_str(&format!("{:width$}  {}\n", row.format, sum_text(&row.sum)));
        }
        for lang in &self.languages {
            out.push_str(&format!("{:width$}  {}\n", lang.lang, progress(lang)));
        }
        if self.formats.len() > 1 {
            out.push_str(&format!("{:width$}  {}\n", "total", sum_text(&self.totals)));
        }
        out
    }
}

/// `docs/a.md  markdown  12 blocks, 340 words, 2,010 chars, 5 codes, 1 switch; fr 10/12
/// translated, 1 missing, 1 stale`.
fn file_line(file: &FileStats, path_width: usize, format_width: usize) -> String {
    let head = format!("{:path_width$}  {:format_width$}  ", file.path, file.format);
    let mut line = format!("{head}{}", counts_text(&file.counts));
    for edition in file.editions.iter().skip(1) {
        line.push_str("; ");
        line.push_str(&edition_text(edition));
    }
    line
}

/// `fr 10/12 translated, 1 missing, 1 stale`, naming an absent or unreadable target file.
fn edition_text(edition: &EditionStats) -> String {
    let name = &edition.edition;
    if edition.error.is_some() {
        let doc = edition.target_doc.as_deref().unwrap_or("its file");
        return format!("{name} {doc} does not read");
    }
    let counts = Counts {
        lang: name.clone(),
        total: edition.total.unwrap_or(0),
        translated: edition.translated.unwrap_or(0),
        missing: edition.missing.unwrap_or(0),
        stale: edition.stale.unwrap_or(0),
    };
    let mut text = format!("{name} {}", progress(&counts));
    if edition.exists == Some(false)
        && let Some(doc) = &edition.target_doc
    {
        text.push_str(&format!(" ({doc} absent)"));
    }
    text
}

/// `10/12 translated, 1 missing, 1 stale`.
fn progress(counts: &Counts) -> String {
    format!(
        "{}/{} translated, {} missing, {} stale",
        thousands(counts.translated),
        thousands(counts.total),
        thousands(counts.missing),
        thousands(counts.stale)
    )
}

/// `12 blocks, 340 words, 2,010 chars, 5 codes, 1 switch`.
fn counts_text(c: &TextCounts) -> String {
    [
        (c.blocks, "block", "blocks"),
        (c.words, "word", "words"),
        (c.characters, "char", "chars"),
        (c.codes, "code", "codes"),
        (c.switches, "switch", "switches"),
    ]
    .iter()
    .map(|(n, one, many)| counted(*n, one, many))
    .collect::<Vec<_>>()
    .join(", ")
}

/// `3 files (1 does not read), 24 blocks, …`.
fn sum_text(sum: &Sum) -> String {
    let mut files = counted(sum.files, "file", "files");
    if sum.unreadable > 0 {
        files.push_str(&format!(
            " ({} {} not read)",
            thousands(sum.unreadable),
            if sum.unreadable == 1 { "does" } else { "do" }
        ));
    }
    format!("{files}, {}", counts_text(&sum.counts))
}

/// `path:line:column: message`, or `path: message` when the reader gave no position.
fn failure_line(failure: &Failure) -> String {
    match (failure.line, failure.column) {
        (Some(line), Some(column)) => {
            format!("{}:{line}:{column}: {}", failure.doc, failure.message)
        }
        _ => format!("{}: {}", failure.doc, failure.message),
    }
}

fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{} {}", thousands(n), if n == 1 { one } else { many })
}

/// `2010` as `2,010`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_take_thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(2010), "2,010");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn a_failure_without_a_position_names_the_file_alone() {
        let mut failure = Failure {
            doc: "a.json".into(),
            message: "bad".into(),
            line: Some(3),
            column: Some(7),
        };
        assert_eq!(failure_line(&failure), "a.json:3:7: bad");
        failure.line = None;
        assert_eq!(failure_line(&failure), "a.json: bad");
    }
}
