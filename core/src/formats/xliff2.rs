//! XLIFF 2.x (2.0, 2.1, 2.2) bilingual files: one block per `<segment>` of each `<unit>`,
//! its `<source>` as the source edition and its `<target>` as the edition of `trgLang`.
//!
//! Choices:
//! - **Blocks**: every `<segment>` of a `<unit>` of the XLIFF namespace (any prefix), role
//!   `key`, in document order. `<ignorable>`s (whitespace between segments), `<originalData>`,
//!   module elements (`<mtc:matches>`, `<gls:glossary>`, `<res:resourceData>` …) and their
//!   `<source>`/`<target>` stay in the skeleton. `translate="no"` on the unit or inherited from
//!   its `<group>`/`<file>` gives `translatable: false` and `locked: translate="no"`.
//! - **Keys**: the unit's `id` when it has one segment; `{unit}/{segment}` when it has
//!   several (the segment's `id`, else its 1-based position among the unit's segments). When
//!   the file holds several `<file>` elements, the key starts with `{file id}/`. Repeats get
//!   `#2` ([`crate::model::KeyDeduper`]).
//! - **Limits**: elements nest at most 256 deep ([`super::MAX_DEPTH`]); block keys, and the
//!   unit notes each segment repeats, may add up to four times the file's size plus 16 MB
//!   ([`super::KeyBudget`]).
//! - **Editions**: `<source>` is the source; `<target>` is `targets[trgLang]` (`target` when the
//!   root names no `trgLang`); the segment's `state` is the target's `Edition.state`,
//!   verbatim. A segment with no `<target>` has no target edition; one added is written as a
//!   `<target>` right after the `</source>`, in the source's style (see [`super::xliff`]).
//!   An edited target's state is written on the `<segment>`: its `state` attribute
//!   rewritten in place, added after the name, or dropped when the state is taken away
//!   (`subState` is left as it is); it must be `initial`, `translated`, `reviewed` or
//!   `final`, else the write is refused with [`WriteError::State`]. The unit's
//!   `<notes><note>` texts go to the notes of each of its segments.
//! - **Codes**: `<pc>` and `<mrk>` are paired (start tag opens, end tag closes; not deletable
//!   when `canDelete="no"`, resp. `translate="no"`); `<ph/>`, `<cp/>`, comments and processing
//!   instructions stand alone; `<sc/>`/`<ec startRef/>` and `<sm/>`/`<em startRef/>` pair
//!   within the edition and stand alone when isolated or unmatched. Data is the exact bytes of
//!   the tag. Ids are `1`, `2`, … per edition, the XLIFF `id` kept in `attrs["id"]`; `{0}` and
//!   printf placeholders in text are codes too. Text, escaping and writing follow XLIFF 1.2
//!   (see [`super::xliff`]).
//! - **Invalid files** (schema-invalid but well-formed, as in the XLIFF TC's `invalid`
//!   samples) are read leniently: no `<file>` or a unit without segments gives no blocks;
//!   duplicate ids are deduplicated; an unknown `state` is kept as written; a missing
//!   `trgLang` names the target `target`; a `<target xml:lang>` that differs from `trgLang`
//!   is still filed under `trgLang`; an `<ec>` before its `<sc>` stands alone. Two things are
//!   refused, because the segment's source would be ambiguous: a `<segment>` without
//!   `<source>` and a second `<source>` (or `<target>`) in one segment.
//!
//! `<unit id="u1"><segment><source>Hi <pc id="1">you</pc></source></segment></unit>` reads
//! as block `u1`, source `Hi <x id="1"/>you<x id="/1"/>`.

use std::collections::HashMap;

use super::output::Output;
use super::xliff::{self, Inline};
use super::xml::{self, Tree};
use super::{Capabilities, Format, FormatInfo, Keys, Parsed, ReadError, Skeleton, WriteError};

pub const INFO: FormatInfo = FormatInfo {
    id: "xliff2",
    name: "XLIFF 2",
    extensions: &["xlf", "xliff"],
    capabilities: Capabilities {
        editable: false,
        round_trip: true,
        generative: false,
        bilingual: true,
        comments: false,
    },
};

pub struct Xliff2;

impl Format for Xliff2 {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(xml::decode, read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        xliff::write(parsed, xliff::Version::V2)
    }

    fn sniff(&self, head: &[u8]) -> bool {
        xml::xliff_major(head) == Some(2)
    }
}

/// Reads `text` into `skeleton` (whose text is `text`), or hands each segment to `each`.
fn read_text<'e>(
    text: &str,
    skeleton: Skeleton,
    each: Option<super::Each<'e>>,
) -> Result<Output<'e>, ReadError> {
    let tree = xliff::parse_tree(text, 2)?;
    let root = tree.root;
    let ns = tree.prefix(root);
    let is = |i: usize, local: &str| super::xliff::named(&tree, i, ns, local);
    let several = tree.children(root).filter(|&i| is(i, "file")).count() > 1;
    let lang = xliff::target_language(&tree, root, "trgLang");
    let mut out = Output::new(INFO.id, skeleton, each);
    let segments = (0..tree.elements.len())
        .filter(|&i| is(i, "segment"))
        .count();
    out.reserve(segments);
    let mut keys = Keys::new(text.len());
    // Each `<file>`'s id and each element's `translate`, read once: a `<file>` or
    // `<group>` with many units is otherwise read again for every one.
    let mut file_ids: HashMap<usize, String> = HashMap::new();
    let mut translates = HashMap::new();
    for unit in 0..tree.elements.len() {
        if !is(unit, "unit") {
            continue;
        }
        // A `<unit>` in a module's subtree (a match, a glossary) is not content.
        if xliff::ancestor(&tree, unit, |i| tree.prefix(i) != ns).is_some() {
            continue;
        }
        // Nor is one inside another unit (markup inside a `<target>`): reading it would
        // overlap the two.
        if xliff::ancestor(&tree, unit, |i| is(i, "unit")).is_some() {
            continue;
        }
        let unit_id = tree
            .attr(unit, "id")
            .map_or_else(|| "unit".to_owned(), |id| id.into_owned());
        let base = match xliff::ancestor(&tree, unit, |i| is(i, "file")) {
            Some(file) if several => {
                let file_id = file_ids.entry(file).or_insert_with(|| {
                    tree.attr(file, "id")
                        .map_or_else(|| "file".to_owned(), |id| id.into_owned())
                });
                format!("{file_id}/{unit_id}")
            }
            _ => unit_id,
        };
        let translate = xliff::inherited(
            &tree,
            unit,
            |i| is(i, "unit") || is(i, "group") || is(i, "file"),
            &mut translates,
        );
        let notes = unit_notes(&tree, unit, &is);
        let segments: Vec<usize> = tree.children(unit).filter(|&c| is(c, "segment")).collect();
        for (position, &segment) in segments.iter().enumerate() {
            let (source, target) = segment_parts(&tree, segment, &is)?;
            let key = if segments.len() > 1 {
                let segment_id = tree
                    .attr(segment, "id")
                    .map_or_else(|| (position + 1).to_string(), |id| id.into_owned());
                format!("{base}/{segment_id}")
            } else {
                base.clone()
            };
            let at = tree.get(segment).map_or(0, |e| e.open().start);
            let key = keys.key(&key, text, at)?;
            // Every segment of a unit carries the unit's notes: they count like keys.
            if position > 0 {
                keys.charge(notes.iter().map(String::len).sum(), text, at)?;
            }
            let found = xliff::Found {
                key,
                element: segment,
                source,
                target,
                state: tree.attr(segment, "state"),
                state_on: Some(segment),
                after: source,
                notes: notes.clone(),
                translate: translate.clone(),
            };
            xliff::push_found(&mut out, &tree, &lang, &classify, found);
        }
    }
    Ok(out)
}

/// The text of a unit's notes, in order (`is` tells an element by local name in the
/// document's namespace).
fn unit_notes(tree: &Tree, unit: usize, is: &dyn Fn(usize, &str) -> bool) -> Vec<String> {
    let mut notes = Vec::new();
    for child in tree.children(unit).filter(|&c| is(c, "notes")) {
        for note in tree.children(child).filter(|&n| is(n, "note")) {
            notes.push(tree.text_content(note));
        }
    }
    notes
}

/// A `<segment>`'s `<source>` and `<target>`: it holds one source and at most one target.
fn segment_parts(
    tree: &Tree,
    segment: usize,
    is: &dyn Fn(usize, &str) -> bool,
) -> Result<(usize, Option<usize>), ReadError> {
    let mut source = None;
    let mut target = None;
    for child in tree.children(segment) {
        let slot = if is(child, "source") {
            &mut source
        } else if is(child, "target") {
            &mut target
        } else {
            continue;
        };
        if slot.is_some() {
            return Err(xliff::at(
                tree,
                child,
                format!(
                    "a second `<{}>` in a `<segment>`: a segment holds one",
                    tree.qname(child)
                ),
            ));
        }
        *slot = Some(child);
    }
    let Some(source) = source else {
        return Err(xliff::at(
            tree,
            segment,
            "a `<segment>` has no `<source>`: expected one",
        ));
    };
    Ok((source, target))
}

/// XLIFF 2 inline elements.
fn classify(tree: &Tree, index: usize) -> Inline {
    if tree.prefix(index) != tree.prefix(tree.root) {
        return Inline::Standalone;
    }
    let attr = |name: &str| tree.attr(index, name).unwrap_or_default();
    let isolated = attr("isolated") == "yes";
    match tree.local(index) {
        "pc" => Inline::Pair {
            deletable: attr("canDelete") != "no",
        },
        "mrk" => Inline::Pair {
            deletable: attr("translate") != "no",
        },
        "sc" if !isolated => Inline::Begin {
            key: format!("sc:{}", attr("id")),
            deletable: attr("canDelete") != "no",
        },
        "ec" if !isolated => Inline::Finish {
            key: format!("sc:{}", attr("startRef")),
        },
        "sm" => Inline::Begin {
            key: format!("sm:{}", attr("id")),
            deletable: attr("translate") != "no",
        },
        "em" => Inline::Finish {
            key: format!("sm:{}", attr("startRef")),
        },
        _ => Inline::Standalone,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::conformance;
    use crate::formats::xliff::tests::{blocks_table, shape};
    use crate::model::Run;

    fn read(text: &str) -> Parsed {
        Xliff2
            .read(text.as_bytes())
            .unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    fn doc(units: &str) -> String {
        format!(
            "<?xml version=\"1.0\"?>\n<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.0\" srcLang=\"en\" trgLang=\"fr\">\n <file id=\"f1\">\n{units}\n </file>\n</xliff>\n"
        )
    }

    #[test]
    fn reads_blocks_of_fixtures() {
        for name in [
            "everything-core.xlf",
            "withReorderedCodes.xlf",
            "withNotes.xlf",
            "allExtensions.xlf",
        ] {
            let path = conformance::fixtures("xliff2")
                .into_iter()
                .find(|p| p.ends_with(name))
                .unwrap();
            let parsed = Xliff2.read(&std::fs::read(path).unwrap()).unwrap();
            insta::assert_snapshot!(
                format!("xliff2_blocks_{name}"),
                blocks_table(&parsed.document)
            );
        }
    }

    #[test]
    fn the_corpus_round_trips_and_edits_one_block() {
        assert!(conformance::run_corpus(&Xliff2, "xliff2") > 0);
    }

    #[test]
    fn segments_are_blocks_keyed_by_unit_and_segment() {
        let parsed = read(&doc(concat!(
            "<unit id=\"u1\"><notes><note>N</note></notes><segment state=\"final\"><source>A</source><target>a</target></segment></unit>\n",
            "<unit id=\"u2\"><segment id=\"s1\"><source>B</source></segment><ignorable><source> </source></ignorable><segment><source>C</source></segment></unit>\n",
            "<unit id=\"u1\" translate=\"no\"><segment><source>D</source></segment></unit>",
        )));
        let blocks = &parsed.document.blocks;
        let keys: Vec<_> = blocks.iter().map(|b| b.key.as_str()).collect();
        assert_eq!(keys, ["u1", "u2/s1", "u2/2", "u1#2"]);
        let fr = &blocks[0].targets["fr"];
        assert_eq!(
            (fr.plain_text().as_str(), fr.state.as_deref()),
            ("a", Some("final"))
        );
        assert_eq!(blocks[0].notes, ["N"]);
        assert!(!blocks[3].translatable && blocks[3].locked.is_some());
    }

    #[test]
    fn inline_elements_become_codes() {
        let table: &[(&str, &str)] = &[
            ("a <pc id=\"1\">b</pc>", "a [o1:<pc id=\"1\">]b[c1:</pc>]"),
            (
                "<pc id=\"1\" canDelete=\"no\">b</pc>",
                "[o1!:<pc id=\"1\" canDelete=\"no\">]b[c1!:</pc>]",
            ),
            ("x<ph id=\"9\"/>", "x[s1!:<ph id=\"9\"/>]"),
            (
                "<sc id=\"1\"/>t<ec startRef=\"1\"/>",
                "[o1:<sc id=\"1\"/>]t[c1:<ec startRef=\"1\"/>]",
            ),
            (
                "<ec startRef=\"1\"/>t<sc id=\"1\"/>",
                "[s1!:<ec startRef=\"1\"/>]t[s2!:<sc id=\"1\"/>]",
            ),
            (
                "<sc id=\"1\" isolated=\"yes\"/>t",
                "[s1!:<sc id=\"1\" isolated=\"yes\"/>]t",
            ),
            (
                "<sm id=\"m\" type=\"term\"/>t<em startRef=\"m\"/>",
                "[o1:<sm id=\"m\" type=\"term\"/>]t[c1:<em startRef=\"m\"/>]",
            ),
            (
                "<mrk id=\"m1\" translate=\"no\">X</mrk>",
                "[o1!:<mrk id=\"m1\" translate=\"no\">]X[c1!:</mrk>]",
            ),
            (
                "a<cp hex=\"0003\"/>b %d",
                "a[s1!:<cp hex=\"0003\"/>]b [s2!:%d]",
            ),
        ];
        for (source, want) in table {
            let parsed = read(&doc(&format!(
                "<unit id=\"u\"><segment><source>{source}</source></segment></unit>"
            )));
            assert_eq!(
                shape(&parsed.document.blocks[0].source.runs),
                *want,
                "{source}"
            );
        }
    }

    #[test]
    fn module_content_and_ignorables_stay_in_the_skeleton() {
        let text = doc(concat!(
            "<unit id=\"1\"><mtc:matches xmlns:mtc=\"urn:oasis:names:tc:xliff:matches:2.0\"><mtc:match><source>M</source><target>m</target></mtc:match></mtc:matches>",
            "<segment><source>S</source><target/></segment><ignorable><source> </source></ignorable></unit>",
        ));
        let mut parsed = read(&text);
        assert_eq!(parsed.document.blocks.len(), 1);
        assert_eq!(parsed.document.blocks[0].source.plain_text(), "S");
        parsed.document.blocks[0]
            .targets
            .get_mut("fr")
            .unwrap()
            .runs = vec![Run::text("s & t")];
        let written = String::from_utf8(Xliff2.write(&parsed).unwrap()).unwrap();
        assert_eq!(
            written,
            text.replace("<target/>", "<target>s &amp; t</target>")
        );
    }

    #[test]
    fn invalid_samples_are_read_leniently_or_refused_clearly() {
        let mut refused = Vec::new();
        for path in conformance::fixtures("xliff2-invalid") {
            let bytes = std::fs::read(&path).unwrap();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            match Xliff2.read(&bytes) {
                Ok(parsed) => assert_eq!(Xliff2.write(&parsed).unwrap(), bytes, "{name}"),
                Err(e) => refused.push(format!("{name}: {e}")),
            }
        }
        assert_eq!(
            refused,
            [
                "core-bad_SegmentWithoutSource.xlf: 5:4: a `<segment>` has no `<source>`: expected one",
                "core-bad_TwoSourceInUnit.xlf: 7:5: a second `<source>` in a `<segment>`: a segment holds one",
            ]
        );
    }

    #[test]
    fn lenient_reads_of_invalid_samples_give_what_the_file_says() {
        let read_fixture = |name: &str| {
            let path = conformance::fixtures("xliff2-invalid")
                .into_iter()
                .find(|p| p.ends_with(name))
                .unwrap();
            Xliff2.read(&std::fs::read(path).unwrap()).unwrap()
        };
        assert!(
            read_fixture("core-bad_NoFile.xlf")
                .document
                .blocks
                .is_empty()
        );
        let no_lang = read_fixture("core-bad_NoTrgLang.xlf");
        assert_eq!(
            no_lang.document.blocks[0].targets["target"].plain_text(),
            "target"
        );
        let ec = read_fixture("core-bad_EcBeforeSc.xlf");
        assert_eq!(ec.document.blocks.len(), 2);
    }

    #[test]
    fn fixtures_sniff_as_xliff_2_and_for_file_picks_it() {
        for path in conformance::fixtures("xliff2") {
            let bytes = std::fs::read(&path).unwrap();
            let head = &bytes[..bytes.len().min(4096)];
            let found = crate::formats::for_file(&path, head).map(|f| f.info().id);
            assert_eq!(found, Some("xliff2"), "{}", path.display());
        }
        let two_one = b"<xliff xmlns=\"urn:oasis:names:tc:xliff:document:2.0\" version=\"2.1\">";
        assert!(Xliff2.sniff(two_one) && !xliff::Xliff.sniff(two_one));
    }

    #[test]
    fn truncated_fixtures_never_panic() {
        for dir in ["xliff2", "xliff2-invalid"] {
            for path in conformance::fixtures(dir) {
                let bytes = std::fs::read(&path).unwrap();
                for cut in conformance::cuts(bytes.len()) {
                    if let Ok(mut parsed) = Xliff2.read(&bytes[..cut]) {
                        for block in &mut parsed.document.blocks {
                            block.source.runs.push(Run::text("<&>"));
                        }
                        let written = Xliff2.write(&parsed).unwrap();
                        Xliff2.read(&written).unwrap();
                    }
                }
            }
        }
    }

    #[test]
    fn malformed_xml_is_refused_with_a_position() {
        let err = Xliff2
            .read(b"<xliff version=\"2.0\">\n <file id=\"f\">\n  <unit id=\"1\"><segment><source>a &x; b</source></segment></unit></file></xliff>")
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("3:35: unknown entity `&x;`"), "{err}");
        let err = Xliff2
            .read(b"<xliff version=\"1.2\"/>")
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "1:1: the file is XLIFF 1.2: read it with format `xliff`"
        );
    }

    #[test]
    fn a_target_added_to_a_segment_goes_after_its_source_and_its_state_on_the_segment() {
        let text = doc(concat!(
            "  <unit id=\"u1\">\n    <segment>\n      <source>Hi <pc id=\"1\">you</pc></source>\n    </segment>\n  </unit>\n",
            "  <unit id=\"u2\"><segment state=\"initial\"><source>Bye</source></segment></unit>\n",
            "  <unit id=\"u3\"><segment id=\"s\" state=\"translated\"><source>Yes</source><target>Oui</target></segment></unit>\n",
            "  <unit id=\"u4\"><segment subState=\"x:y\"><source>No</source><target>Non</target></segment></unit>",
        ));
        let mut parsed = read(&text);
        let first = xliff::tests::draft(&parsed, 0, "Salut ", Some("translated"));
        let second = xliff::tests::draft(&parsed, 1, "Au revoir", None);
        parsed.document.blocks[0].targets.insert("fr".into(), first);
        parsed.document.blocks[1]
            .targets
            .insert("fr".into(), second);
        parsed.document.blocks[2]
            .targets
            .get_mut("fr")
            .unwrap()
            .state = Some("reviewed".into());
        parsed.document.blocks[3]
            .targets
            .get_mut("fr")
            .unwrap()
            .state = Some("final".into());
        let out = xliff::tests::written_and_read_back(&Xliff2, &parsed);
        for want in [
            "<segment state=\"translated\">\n      <source>Hi <pc id=\"1\">you</pc></source>\n      <target>Salut <pc id=\"1\">you</pc></target>\n    </segment>",
            "<segment><source>Bye</source><target>Au revoir</target></segment>",
            "<segment id=\"s\" state=\"reviewed\"><source>Yes</source><target>Oui</target>",
            "<segment state=\"final\" subState=\"x:y\"><source>No</source>",
        ] {
            assert!(out.contains(want), "{want}\n{out}");
        }
        // Taking a state away drops the attribute; an unchanged state is copied.
        let mut parsed = read(&out);
        parsed.document.blocks[2]
            .targets
            .get_mut("fr")
            .unwrap()
            .state = None;
        parsed.document.blocks[3]
            .targets
            .get_mut("fr")
            .unwrap()
            .runs = vec![Run::text("Non!")];
        let again = xliff::tests::written_and_read_back(&Xliff2, &parsed);
        assert_eq!(
            again,
            out.replace(
                "<segment id=\"s\" state=\"reviewed\">",
                "<segment id=\"s\">"
            )
            .replace(">Non<", ">Non!<")
        );
    }

    #[test]
    fn a_state_xliff_2_has_no_value_for_is_refused_by_name() {
        let text = doc("<unit id=\"u\"><segment><source>A</source></segment></unit>");
        for state in ["needs-review-translation", "fuzzy", "Final"] {
            let mut parsed = read(&text);
            let edition = xliff::tests::draft(&parsed, 0, "a", Some(state));
            parsed.document.blocks[0]
                .targets
                .insert("fr".into(), edition);
            let e = Xliff2.write(&parsed).unwrap_err();
            assert!(
                matches!(&e, crate::formats::WriteError::State { key, .. } if key == "u"),
                "{e:?}"
            );
            assert!(
                e.to_string()
                    .contains("initial, translated, reviewed, final"),
                "{e}"
            );
        }
    }
}
