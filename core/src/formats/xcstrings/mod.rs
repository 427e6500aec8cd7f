//! Apple String Catalogs (`Localizable.xcstrings`): one JSON file holding a table's source
//! strings and every language's translation, read as a bilingual file (like XLIFF and PO).
//!
//! Choices:
//! - **Blocks and keys**: one block per member of `strings`, keyed by the catalog key
//!   (repeats numbered `#2`, [`crate::model::KeyDeduper`]), role `key`, spanning the member.
//!   `comment` goes to `block.notes` (context for translators, never prose). `shouldTranslate:
//!   false` gives `translatable: false` and `locked: shouldTranslate: false`, as XLIFF's
//!   `translate="no"`. `extractionState` is read but changes nothing but a note:
//!   `stale` (Xcode no longer finds the key in the code) adds the note `extractionState:
//!   stale (…)`, so a translator may skip it; the block is still read and written like any
//!   other, since Xcode keeps its translations.
//! - **Source edition**: the `sourceLanguage` localization's value, its hole the JSON
//!   string's content. A key with no source-language localization is its own source text
//!   (Xcode shows the key): the source is the key's text, with no hole: writing a changed
//!   key would rename the entry, so that source is read-only (an edit of it is not
//!   written). A source's `state` is left in the skeleton.
//! - **Targets**: every other language of `localizations` is `targets[lang]`. Its
//!   `stringUnit.value` gives the runs (a hole over the string's content) and
//!   `stringUnit.state` the `Edition.state`, with a [`HoleKind::State`] hole over the state
//!   string's content. `variations.plural` is one plural [`Switch`] (pivot `count`), one branch
//!   and one hole per category in file order, branch path `count:one`;
//!   `variations.device` is a select switch (pivot `device`, cases `iphone`, `mac`, `other`…),
//!   whose cases may hold a plural in turn (Xcode's device → plural nesting, branch path
//!   `device:iphone/count:one`). Variations nest at most [`MAX_VARIATIONS`] deep; another
//!   kind than `plural`/`device`, two kinds side by side, or a `stringUnit` beside
//!   `variations` is refused with a [`ReadError::Syntax`] at it. Each variation carries its
//!   own state: the edition's state is theirs when they agree, else the one most in need of
//!   work (`new`, then `needs_review`, `stale`, `translated`), and each of them has a state
//!   hole. A state written back equal to the one read leaves every variation's state as it
//!   was; another state is written into all of them.
//! - **Substitutions**: `%#@arg@` in a value is a code, like a stringsdict variable; each
//!   substitution `arg` with plural variations is ONE block keyed `key/arg` (as
//!   [`super::stringsdict`] does), whose editions are plural switches (pivot: the
//!   substitution's name, branch path `arg:one`) with holes and states as above; its source
//!   is the source language's substitution (empty without one). These blocks take no
//!   missing target of their own: a new language is written with the key's block, which
//!   writes the `substitutions` of its `key/arg` blocks' editions of that language beside
//!   its value (`argNum` and `formatSpecifier` copied from the source language's).
//! - **Missing targets**: every language found in any key's `localizations` (but the source
//!   language) that a translatable key lacks gets a [`HoleKind::Missing`] hole where Xcode
//!   would put it: in `localizations` at its sorted place (languages compare ASCII
//!   case-insensitively, as Xcode sorts `zh-Hans` before `zh-HK`), or, in a key with no
//!   `localizations`, where a new `"localizations"` member sorts among the key's members.
//!   Holes are charged to the file's key budget ([`super::KeyBudget`]), so a file of many keys
//!   each in its own language is refused rather than taking quadratic memory.
//! - **Runs**: a value's text with JSON escapes undone; printf placeholders (`%@`, `%lld`,
//!   `%1$@`) and `%#@arg@` references are codes a translation keeps. A run keeps its file
//!   offset when it is a verbatim slice (runs are cut at escapes).
//! - **Writing**: untouched holes copy their bytes, so a no-op write gives the same bytes.
//!   An edited value is escaped as Xcode does (`\"`, `\\`, `\n`, `\t`, other control
//!   characters as `\u00XX`, non-ASCII literal; a file with `\/` or `\u` escapes keeps that
//!   style). A value hole whose edition became a switch is refused ([`WriteError::Block`]).
//!   A changed state rewrites the state string in place; a state other than `new`,
//!   `translated`, `needs_review` or `stale` is refused ([`WriteError::State`]). A target
//!   added to a block is written whole into its missing hole, exactly as Xcode lays it
//!   out (`"fr" : {` / `"stringUnit" : {` / `"state" : …,` / `"value" : …`, the file's
//!   indentation and line ends, a comma where JSON needs it), a plural as
//!   `variations.plural.<category>.stringUnit` (categories sorted, as Xcode sorts keys), a
//!   device select as `variations.device`; a target without a state is written
//!   `needs_review` (Xcode wants one). Several new languages at one place are written
//!   together in order. Branches added to an existing switch have no hole and are not written.
//! - **Errors and limits**: strict JSON (RFC 8259); malformed JSON is a [`ReadError::Syntax`]
//!   at its line and column; a root that is no object, or without a `strings` object or a
//!   `sourceLanguage` string, is refused. Nesting past [`super::MAX_DEPTH`] is
//!   [`ReadError::TooDeep`]; values the reader does not know are skipped iteratively; a block
//!   past [`super::MAX_CODES`] codes is [`ReadError::TooDense`].
//!
//! `"Hi %@" : {"localizations" : {"fr" : {"stringUnit" : {"state" : "translated", "value" :
//! "Salut %@"}}}}` reads as block `Hi %@`, source `Hi <x id="1/"/>` (the key), target `fr`
//! `Salut <x id="1/"/>` in state `translated`.

mod read;
mod scan;
mod write;

use super::{Capabilities, Format, FormatInfo, Parsed, ReadError, WriteError};

#[cfg(doc)]
use super::HoleKind;
#[cfg(doc)]
use crate::model::Switch;

pub const INFO: FormatInfo = FormatInfo {
    id: "xcstrings",
    name: "Apple String Catalog",
    extensions: &["xcstrings"],
    capabilities: Capabilities {
        editable: false,
        round_trip: true,
        generative: false,
        bilingual: true,
        comments: false,
    },
};

/// How deep variations nest (device → plural is 2).
pub const MAX_VARIATIONS: usize = 3;

/// The states a `stringUnit` takes.
pub const STATES: [&str; 4] = ["new", "translated", "needs_review", "stale"];

pub struct XcStrings;

impl Format for XcStrings {
    fn info(&self) -> &'static FormatInfo {
        &INFO
    }

    super::output::text_reads!(super::decode_auto, read::read_text);

    fn write(&self, parsed: &Parsed) -> Result<Vec<u8>, WriteError> {
        write::write(parsed)
    }
}

#[cfg(test)]
mod tests;
