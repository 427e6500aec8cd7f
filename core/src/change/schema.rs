//! The JSON Schema of `kapi.change/v1` (draft 2020-12), published by `kapi schema change` and
//! used as the input schema of the MCP `apply_edits` tool, so both surfaces take one shape.
//! The decoder is stricter than the schema in one place only: a recipe `value` must have the
//! type its `field` takes.

use serde_json::{Value, json};

use super::decode::RECIPE_FIELDS;

/// The change set's JSON Schema.
pub fn change() -> Value {
    let rev = json!({"type": "string", "pattern": "^(\\*|r[0-9a-f]{16})$",
        "description": "the `rev` the edition (or branch) had when it was read; `*` writes over whatever it holds (a person only)"});
    let at = json!({
        "type": "object", "additionalProperties": false, "required": ["doc", "block"],
        "description": "where an edition lives: the `ref` a read (`kapi inspect --json`, `read_blocks`) gave",
        "properties": {
            "doc": {"type": "string", "description": "project-relative path (or as given outside a project); no `..`, not absolute"},
            "block": {"type": "string", "description": "the block key"},
            "edition": {"type": "string", "default": "source", "description": "`source` or a language tag"},
            "branch": {"type": "string", "description": "a plural/select branch path (`count:one`)"}
        }
    });
    let fields: Vec<&str> = RECIPE_FIELDS.iter().map(|(f, _)| *f).collect();
    let status = json!({"enum": ["preferred", "admitted", "deprecated", "forbidden", "competitor", "suggested"]});
    let set_content = json!({"type": "object", "additionalProperties": false, "required": ["op", "at", "if_match", "content"],
                 "properties": {"op": {"const": "set_content"}, "at": at, "if_match": rev,
                                "content": {"type": "string", "description": "the new text, with every <x id> tag the read showed"}}});
    let replace_text = json!({"type": "object", "additionalProperties": false, "required": ["op", "at", "if_match", "find", "replace"],
                 "properties": {"op": {"const": "replace_text"}, "at": at, "if_match": rev,
                                "find": {"type": "string", "minLength": 1}, "replace": {"type": "string"},
                                "match": {"enum": ["literal", "word"], "default": "literal"},
                                "count": {"type": "integer", "minimum": 1, "description": "replace at most this many, first first"}}});
    let decide = json!({"type": "object", "additionalProperties": false, "required": ["op", "at", "if_match", "outcome"],
                 "properties": {"op": {"const": "decide"}, "at": at, "if_match": rev,
                                "outcome": {"enum": ["establish", "reject", "withdraw", "advise"]},
                                "score": {"type": "integer", "minimum": 0, "maximum": 100, "description": "advise only (required there)"},
                                "reasons": {"type": "array", "items": {"type": "string"}, "description": "advise only"}}});
    let term = json!({"type": "object", "additionalProperties": false, "required": ["op", "term"],
                 "properties": {"op": {"const": "term"}, "term": {
                     "type": "object", "additionalProperties": false, "required": ["text", "lang", "status"],
                     "properties": {
                         "text": {"type": "string", "minLength": 1}, "lang": {"type": "string", "minLength": 1},
                         "status": status,
                         "concept": {"type": "string", "description": "the concept id to join or create (kebab-case)"},
                         "replaces": {"type": "string", "description": "a term's text or a concept id whose concept this term joins"},
                         "replacement": {"type": "string"}, "note": {"type": "string"},
                         "case": {"enum": ["insensitive", "sensitive"]},
                         "severity": {"enum": ["critical", "major", "minor", "info"]},
                         "definition": {"type": "string", "description": "for a new concept"}}}}});
    let memory = json!({"type": "object", "additionalProperties": false, "required": ["op", "pair"],
                 "properties": {"op": {"const": "memory"}, "pair": {
                     "type": "object", "additionalProperties": false, "required": ["source", "target", "target_lang"],
                     "properties": {"source": {"type": "string", "minLength": 1}, "target": {"type": "string", "minLength": 1},
                                    "source_lang": {"type": "string"}, "target_lang": {"type": "string"},
                                    "status": {"enum": ["reviewed", "signed-off"]}}}}});
    let note = json!({"type": "object", "additionalProperties": false, "required": ["op", "note"],
        "properties": {"op": {"const": "note"}, "note": {
            "type": "object", "additionalProperties": false, "required": ["path"],
            "description": "a context note a person keeps: `text`, or `from` and `to` (a person's change, with `suggest` for the form it proposes)",
            "properties": {"path": {"type": "string", "description": "the folder or file it applies to (and below); `.` for the project"},
                           "text": {"type": "string", "minLength": 1, "maxLength": 500},
                           "from": {"type": "string", "minLength": 1, "maxLength": 500},
                           "to": {"type": "string", "minLength": 1, "maxLength": 500},
                           "suggest": {"type": "string", "minLength": 1, "maxLength": 500}}}}});
    let recipe = json!({"type": "object", "additionalProperties": false, "required": ["op", "field", "value"],
                 "properties": {"op": {"const": "recipe"}, "field": {"enum": fields},
                                "value": {"description": "the field's value (a string, an array of strings or an integer)"}}});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "kapi.change/v1",
        "title": "kapi change set",
        "description": "Operations applied whole or not at all. Also accepted as JSON lines: one operation object per line, optionally led by {\"schema\": \"kapi.change/v1\", \"gate\": …}.",
        "type": "object", "additionalProperties": false, "required": ["schema", "operations"],
        "properties": {
            "schema": {"const": "kapi.change/v1"},
            "gate": {"enum": ["enforce", "report"], "default": "enforce",
                     "description": "`report` lands an edit over the findings it introduces (a person or a tool only)"},
            "operations": {"type": "array", "maxItems": super::MAX_OPERATIONS, "items": {"oneOf": [set_content, replace_text, decide, term, memory, note, recipe]}}
        }
    })
}
