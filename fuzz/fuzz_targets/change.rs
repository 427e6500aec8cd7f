//! Change sets: any bytes either decode or give a decode error (never a panic), and every
//! content operation of a decoded set applies to an edition with codes and a plural without a
//! panic, leaving the edition unchanged unless it reports `Applied`. `cargo +nightly fuzz run change`.
#![no_main]

use kapi_core::change::edit::{self, Edited};
use kapi_core::change::decode;
use kapi_core::model::{Branch, Code, CodeKind, Edition, Run, Switch, SwitchKind};
use libfuzzer_sys::fuzz_target;

fn edition() -> Edition {
    Edition::new(vec![
        Run::text("Open the "),
        Code::new("1", CodeKind::Open, "link", "[", true).into(),
        Run::text("dashboard"),
        Code::new("1", CodeKind::Close, "link", "](/d)", true).into(),
        Run::text(" with {name} "),
        Code::new("2", CodeKind::Standalone, "placeholder", "{name}", false).into(),
        Run::from(Switch {
            id: "3".into(),
            kind: SwitchKind::Plural,
            pivot: "count".into(),
            branches: vec![
                Branch::new("one", vec![Run::text("one file")]),
                Branch::new("other", vec![Run::text("many files")]),
            ],
            head: "{count, plural,".into(),
            tail: "}".into(),
            src: None,
            forms: None,
        }),
    ])
}

fuzz_target!(|data: &[u8]| {
    let Ok(set) = decode(data) else { return };
    for op in &set.operations {
        if !op.is_content() {
            continue;
        }
        let mut e = edition();
        let before = e.rev();
        match edit::apply(&mut e, op, Some(&before)) {
            Edited::Applied { .. } => {}
            _ => assert_eq!(e.rev(), before, "a refused or unchanged edit changed the edition"),
        }
    }
});
