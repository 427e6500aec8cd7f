use super::*;
use crate::change::{MatchMode, Operation};

const AT: &str = r#"{"doc":"a.md","block":"p","edition":"source"}"#;

fn set(body: &str) -> String {
    format!(r#"{{"op":"set_content","at":{AT},"if_match":"r0123456789abcdef",{body}}}"#)
}

#[test]
fn a_document_decodes() {
    let doc = format!(
        r#"{{"schema":"kapi.change/v1","gate":"report","operations":[{}]}}"#,
        set(r#""content":"Hi""#)
    );
    let set = decode(doc.as_bytes()).unwrap();
    assert_eq!(set.gate, GateMode::Report);
    assert_eq!(set.operations.len(), 1);
    assert_eq!(set.operations[0].name(), "set_content");
}

#[test]
fn json_lines_decode_with_and_without_a_header() {
    let lines = format!(
        "{}\n{}\n",
        set(r#""content":"A""#),
        r#"{"op":"replace_text","at":{"doc":"a.md","block":"p"},"if_match":"*","find":"x","replace":"y","match":"word","count":2}"#
    );
    let set1 = decode(lines.as_bytes()).unwrap();
    assert_eq!(set1.operations.len(), 2);
    match &set1.operations[1] {
        Operation::ReplaceText {
            mode, count, at, ..
        } => {
            assert_eq!(*mode, MatchMode::Word);
            assert_eq!(*count, Some(2));
            assert_eq!(at.edition, "source");
        }
        other => panic!("{other:?}"),
    }
    let with_header = format!("{{\"schema\":\"kapi.change/v1\"}}\n{lines}");
    assert_eq!(decode(with_header.as_bytes()).unwrap().operations.len(), 2);
}

#[test]
fn errors_name_the_index_line_and_field() {
    let lines = format!("{}\n{}\n", set(r#""content":"A""#), set(r#""contnet":"A""#));
    let e = decode(lines.as_bytes()).unwrap_err();
    assert_eq!(e.index, Some(1));
    assert_eq!(e.line, Some(2));
    assert_eq!(e.field.as_deref(), Some("contnet"));
    assert!(
        e.to_string()
            .starts_with("line 2: operations[1].contnet: unknown field")
    );
}

#[test]
fn bad_input_is_refused_with_a_reason() {
    let cases: &[(&str, &str)] = &[
        ("", "empty"),
        ("not json", "not JSON"),
        (
            r#"{"schema":"kapi.change/v2","operations":[]}"#,
            "unknown schema",
        ),
        (r#"{"operations":[]}"#, "schema: missing"),
        (r#"{"op":"delete"}"#, "unknown operation"),
        (&set(r#""content":1"#), "content: must be a string"),
        (
            r#"{"op":"set_content","at":{"doc":"../x.md","block":"p"},"if_match":"*","content":""}"#,
            "at.doc: `../x.md` leaves the project",
        ),
        (
            r#"{"op":"set_content","at":{"doc":"/etc/../x.md","block":"p"},"if_match":"*","content":""}"#,
            "leaves the project",
        ),
        (
            r#"{"op":"set_content","at":{"doc":"a.md","block":"p"},"if_match":"abc","content":""}"#,
            "is not a revision",
        ),
        (
            r#"{"op":"decide","at":{"doc":"a.md","block":"p"},"if_match":"*","outcome":"advise","score":101}"#,
            "not a score",
        ),
        (
            r#"{"op":"decide","at":{"doc":"a.md","block":"p"},"if_match":"*","outcome":"advise"}"#,
            "score: missing",
        ),
        (
            r#"{"op":"recipe","field":"collections","value":[]}"#,
            "not a field",
        ),
        (
            r#"{"op":"recipe","field":"gates.min_score","value":"x"}"#,
            "takes integer",
        ),
        (
            r#"{"schema":"kapi.change/v1","actor":"person","operations":[]}"#,
            "actor: unknown field",
        ),
        ("[1,2]", "JSON array"),
    ];
    for (input, wanted) in cases {
        let e = decode(input.as_bytes()).expect_err(input);
        assert!(e.to_string().contains(wanted), "{input}: {e}");
    }
}

#[test]
fn too_many_operations_are_refused() {
    let one = set(r#""content":"A""#);
    let many = format!("{one}\n").repeat(MAX_OPERATIONS + 1);
    let e = decode(many.as_bytes()).unwrap_err();
    assert!(e.message.contains("at most"), "{e}");
}

#[test]
fn an_empty_operations_list_is_a_valid_set() {
    let set = decode(br#"{"schema":"kapi.change/v1","operations":[]}"#).unwrap();
    assert!(set.operations.is_empty());
}
