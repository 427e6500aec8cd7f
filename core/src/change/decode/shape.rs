//! The fields of every `kapi.change/v1` object, described once: the decoder refuses any key
//! not listed here, and [`crate::change::schema`] builds the JSON Schema (`properties`,
//! `required`, each field's type) from the same lists, so the two cannot drift.

use serde_json::{Value, json};

use super::{MAX_NOTE_CHARS, RECIPE_FIELDS};

/// An object of a change set: an operation (`op` names it) or an object inside one.
#[derive(Debug)]
pub struct Shape {
    /// The operation's `op`, for an operation; `None` for any other object.
    pub op: Option<&'static str>,
    /// The object's JSON Schema `description`, if it has one.
    pub description: Option<&'static str>,
    /// Every field the object may hold, in the order the schema lists them.
    pub fields: &'static [Field],
}

/// One field of a [`Shape`].
#[derive(Debug)]
pub struct Field {
    pub name: &'static str,
    /// Whether decoding refuses the object without it.
    pub required: bool,
    pub holds: Holds,
}

/// What a field holds, as the JSON Schema states it.
#[derive(Debug)]
pub enum Holds {
    /// The operation's own name (`{"const": op}`).
    Op,
    /// A value its JSON Schema describes.
    Value(fn() -> Value),
    /// An object with fields of its own.
    Object(&'static Shape),
    /// The list of operations, each one of the operation shapes.
    Operations,
}

impl Shape {
    /// The names of its fields, in order: what the decoder accepts.
    pub fn names(&self) -> Vec<&'static str> {
        self.fields.iter().map(|f| f.name).collect()
    }
}

const fn required(name: &'static str, holds: Holds) -> Field {
    Field {
        name,
        required: true,
        holds,
    }
}

const fn optional(name: &'static str, holds: Holds) -> Field {
    Field {
        name,
        required: false,
        holds,
    }
}

const OP: Field = required("op", Holds::Op);
const AT_FIELD: Field = required("at", Holds::Object(&AT));
const IF_MATCH: Field = required("if_match", Holds::Value(rev));

fn rev() -> Value {
    json!({"type": "string", "pattern": "^(\\*|r[0-9a-f]{16})$",
        "description": "the `rev` the edition (or branch) had when it was read; `*` writes over whatever it holds (a person only)"})
}

fn string() -> Value {
    json!({"type": "string"})
}

fn non_empty() -> Value {
    json!({"type": "string", "minLength": 1})
}

fn note_text() -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": MAX_NOTE_CHARS})
}

/// The document form's header: `{"schema", "gate", "operations"}`.
pub const DOCUMENT: Shape = Shape {
    op: None,
    description: None,
    fields: &[
        SCHEMA_FIELD,
        GATE,
        required("operations", Holds::Operations),
    ],
};

/// The header that may lead JSON lines: `{"schema", "gate"}`.
pub const LINES_HEADER: Shape = Shape {
    op: None,
    description: None,
    fields: &[SCHEMA_FIELD, GATE],
};

const SCHEMA_FIELD: Field = required(
    "schema",
    Holds::Value(|| json!({"const": crate::change::SCHEMA})),
);

const GATE: Field = optional(
    "gate",
    Holds::Value(|| {
        json!({"enum": ["enforce", "report"], "default": "enforce",
            "description": "`report` lands an edit over the findings it introduces (a person or a tool only)"})
    }),
);

/// `at`: where an edition lives.
pub const AT: Shape = Shape {
    op: None,
    description: Some(
        "where an edition lives: the `ref` a read (`kapi inspect --json`, `read_blocks`) gave",
    ),
    fields: &[
        required(
            "doc",
            Holds::Value(
                || json!({"type": "string", "description": "project-relative path (or as given outside a project); no `..`, not absolute"}),
            ),
        ),
        required(
            "block",
            Holds::Value(|| json!({"type": "string", "description": "the block key"})),
        ),
        optional(
            "edition",
            Holds::Value(
                || json!({"type": "string", "default": "source", "description": "`source` or a language tag"}),
            ),
        ),
        optional(
            "branch",
            Holds::Value(
                || json!({"type": "string", "description": "a plural/select branch path (`count:one`)"}),
            ),
        ),
    ],
};

pub const SET_CONTENT: Shape = Shape {
    op: Some("set_content"),
    description: None,
    fields: &[
        OP,
        AT_FIELD,
        IF_MATCH,
        required(
            "content",
            Holds::Value(
                || json!({"type": "string", "description": "the new text, with every <x id> tag the read showed"}),
            ),
        ),
    ],
};

pub const REPLACE_TEXT: Shape = Shape {
    op: Some("replace_text"),
    description: None,
    fields: &[
        OP,
        AT_FIELD,
        IF_MATCH,
        required("find", Holds::Value(non_empty)),
        required("replace", Holds::Value(string)),
        optional(
            "match",
            Holds::Value(|| json!({"enum": ["literal", "word"], "default": "literal"})),
        ),
        optional(
            "count",
            Holds::Value(
                || json!({"type": "integer", "minimum": 1, "description": "replace at most this many, first first"}),
            ),
        ),
    ],
};

pub const DECIDE: Shape = Shape {
    op: Some("decide"),
    description: None,
    fields: &[
        OP,
        AT_FIELD,
        IF_MATCH,
        required(
            "outcome",
            Holds::Value(|| json!({"enum": ["establish", "reject", "withdraw", "advise"]})),
        ),
        optional(
            "score",
            Holds::Value(
                || json!({"type": "integer", "minimum": 0, "maximum": 100, "description": "advise only (required there)"}),
            ),
        ),
        optional(
            "reasons",
            Holds::Value(
                || json!({"type": "array", "items": {"type": "string"}, "description": "advise only"}),
            ),
        ),
    ],
};

pub const TERM_OP: Shape = Shape {
    op: Some("term"),
    description: None,
    fields: &[OP, required("term", Holds::Object(&TERM))],
};

/// A term, as [`crate::governance::terms_edit::TermUpsert`] reads it.
pub const TERM: Shape = Shape {
    op: None,
    description: None,
    fields: &[
        required("text", Holds::Value(non_empty)),
        required("lang", Holds::Value(non_empty)),
        required(
            "status",
            Holds::Value(
                || json!({"enum": ["preferred", "admitted", "deprecated", "forbidden", "competitor", "suggested"]}),
            ),
        ),
        optional(
            "concept",
            Holds::Value(
                || json!({"type": "string", "description": "the concept id to join or create (kebab-case)"}),
            ),
        ),
        optional(
            "replaces",
            Holds::Value(
                || json!({"type": "string", "description": "a term's text or a concept id whose concept this term joins"}),
            ),
        ),
        optional("replacement", Holds::Value(string)),
        optional("note", Holds::Value(string)),
        optional(
            "case",
            Holds::Value(|| json!({"enum": ["insensitive", "sensitive"]})),
        ),
        optional(
            "severity",
            Holds::Value(|| json!({"enum": ["critical", "major", "minor", "info"]})),
        ),
        optional(
            "exceptions",
            Holds::Value(
                || json!({"type": "array", "items": {"type": "string", "minLength": 1}, "description": "phrases in which the term is allowed (`ReactJS Day`), each holding the term; the whole list, an empty one removes it"}),
            ),
        ),
        optional(
            "definition",
            Holds::Value(|| json!({"type": "string", "description": "for a new concept"})),
        ),
    ],
};

pub const MEMORY: Shape = Shape {
    op: Some("memory"),
    description: None,
    fields: &[OP, required("pair", Holds::Object(&PAIR))],
};

/// A content-memory pair.
pub const PAIR: Shape = Shape {
    op: None,
    description: None,
    fields: &[
        required("source", Holds::Value(non_empty)),
        required("target", Holds::Value(non_empty)),
        optional("source_lang", Holds::Value(string)),
        required("target_lang", Holds::Value(string)),
        optional(
            "status",
            Holds::Value(|| json!({"enum": ["reviewed", "signed-off"]})),
        ),
    ],
};

pub const NOTE_OP: Shape = Shape {
    op: Some("note"),
    description: None,
    fields: &[OP, required("note", Holds::Object(&NOTE))],
};

/// A context note.
pub const NOTE: Shape = Shape {
    op: None,
    description: Some(
        "a context note a person keeps: `text`, or `from` and `to` (a person's change, with `suggest` for the form it proposes)",
    ),
    fields: &[
        required(
            "path",
            Holds::Value(
                || json!({"type": "string", "description": "the folder or file it applies to (and below); `.` for the project"}),
            ),
        ),
        optional("text", Holds::Value(note_text)),
        optional("from", Holds::Value(note_text)),
        optional("to", Holds::Value(note_text)),
        optional("suggest", Holds::Value(note_text)),
    ],
};

pub const RECIPE: Shape = Shape {
    op: Some("recipe"),
    description: None,
    fields: &[
        OP,
        required(
            "field",
            Holds::Value(|| {
                let fields: Vec<&str> = RECIPE_FIELDS.iter().map(|(f, _)| *f).collect();
                json!({"enum": fields})
            }),
        ),
        required(
            "value",
            Holds::Value(
                || json!({"description": "the field's value (a string, an array of strings or an integer)"}),
            ),
        ),
    ],
};
