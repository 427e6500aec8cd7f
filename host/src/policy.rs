//! Who may send which operation of a change set (the seed's ChangePolicy). A person may do
//! everything: write over whatever an edition holds (`if_match: "*"`), choose the report
//! gate, decide, and change terms, memory and the recipe. An agent may change content
//! (reading first) and pre-review with `advise`. A tool is an agent that may also choose the
//! report gate (its drafts meet the ship gates later). Any other sender is refused every
//! operation. Each refusal says what to do instead.

use kapi_core::change::{BLIND, GateMode, Operation, Outcome};

use crate::Surface;
use crate::app::Actor;

/// The kind [`crate::app::App::actor`] gives a `KAPI_ACTOR=person` claim made where a host's
/// agent runs the command (`CLAUDECODE`, Codex's thread id, … in the environment): no kind kapi
/// knows, so every person's verb refuses it, saying why ([`unknown_sender`]).
pub const CLAIMED_PERSON: &str = "claimed-person";

/// Why a sender kapi does not know is refused, and what to do instead.
pub fn unknown_sender(actor: &Actor) -> (String, String) {
    if actor.kind == CLAIMED_PERSON {
        return (
            format!(
                "KAPI_ACTOR=person was set in a command {}'s agent runs (its marker is in the environment): an assistant cannot act as a person",
                actor.name
            ),
            "leave KAPI_ACTOR out (the command runs as the agent), record what you noticed with `kapi context note`, and ask the person to run the person's verb in their own terminal".into(),
        );
    }
    (
        format!(
            "the sender `{}:{}` is not a person, an agent or a tool; kapi refuses every operation from it",
            actor.kind, actor.name
        ),
        "set KAPI_ACTOR to `person`, `agent:NAME` or `tool:NAME`".into(),
    )
}

/// The kinds of sender kapi knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Person,
    Agent,
    Tool,
}

impl Kind {
    /// The kind an actor names, if kapi knows it (and the actor has a name).
    pub fn of(actor: &Actor) -> Option<Kind> {
        if actor.name.trim().is_empty() {
            return None;
        }
        match actor.kind.as_str() {
            "person" => Some(Kind::Person),
            "agent" => Some(Kind::Agent),
            "tool" => Some(Kind::Tool),
            _ => None,
        }
    }
}

/// Why an operation is not permitted, and what to do instead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub instead: String,
}

fn refuse(message: impl Into<String>, instead: impl Into<String>) -> Option<Refusal> {
    Some(Refusal {
        message: message.into(),
        instead: instead.into(),
    })
}

/// `None` when `actor` may send `op` in a set with `gate`.
/// The `instead` names what `surface`'s caller types (a command, or a tool).
pub fn check(actor: &Actor, op: &Operation, gate: GateMode, surface: Surface) -> Option<Refusal> {
    let note = surface.pick("`kapi context note`", "`context_note`");
    let read = surface.pick("`kapi inspect FILE --json`", "`read_blocks`");
    let Some(kind) = Kind::of(actor) else {
        let (message, instead) = unknown_sender(actor);
        return refuse(message, instead);
    };
    if kind == Kind::Person {
        return None;
    }
    let who = match kind {
        Kind::Agent => "an agent",
        _ => "a tool",
    };
    if gate == GateMode::Report && kind == Kind::Agent {
        return refuse(
            "an agent cannot choose `\"gate\": \"report\"` to land an edit over the findings it introduces",
            "leave `gate` out (the commit check enforces) and fix what the check reports, or ask a person",
        );
    }
    if op.if_match() == Some(BLIND) {
        return refuse(
            format!("{who} cannot write blind (`if_match: \"*\"`)"),
            format!("read the edition ({read}) and send its `rev` in `if_match`"),
        );
    }
    match op {
        Operation::SetContent { .. } | Operation::ReplaceText { .. } => None,
        Operation::Decide { outcome, .. } if *outcome == Outcome::Advise => None,
        Operation::Decide { outcome, .. } => refuse(
            format!(
                "{who} cannot {} an edition: a review decision belongs to a person",
                outcome.as_str()
            ),
            "pre-review with `\"outcome\": \"advise\"`, a score and reasons; a person decides",
        ),
        Operation::Term { .. } => refuse(
            format!("{who} cannot change the project's terms"),
            format!(
                "record a suggestion with {note}; a person keeps it with `kapi context review`"
            ),
        ),
        Operation::Memory { .. } => refuse(
            format!("{who} cannot add to the content memory"),
            format!("record a suggestion with {note}, or ask a person to apply the pair"),
        ),
        Operation::Note { .. } => refuse(
            format!("{who} cannot keep a note: a kept note is a person's decision"),
            format!(
                "record it as a suggestion with {note}; a person keeps it with `kapi context review`"
            ),
        ),
        Operation::Recipe { .. } => refuse(
            format!("{who} cannot change the recipe (`kapi.yaml`)"),
            format!("ask a person to change it, or record what you noticed with {note}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kapi_core::change::decode;

    fn actor(kind: &str) -> Actor {
        Actor {
            kind: kind.into(),
            name: "x".into(),
            session: "s".into(),
        }
    }

    fn op(json: &str) -> Operation {
        decode(json.as_bytes()).unwrap().operations.remove(0)
    }

    const AT: &str = r#""at":{"doc":"a.md","block":"p"}"#;

    #[test]
    fn the_matrix() {
        let set = op(&format!(
            r#"{{"op":"set_content",{AT},"if_match":"r0123456789abcdef","content":"x"}}"#
        ));
        let blind = op(&format!(
            r#"{{"op":"set_content",{AT},"if_match":"*","content":"x"}}"#
        ));
        let advise = op(&format!(
            r#"{{"op":"decide",{AT},"if_match":"r0123456789abcdef","outcome":"advise","score":80}}"#
        ));
        let establish = op(&format!(
            r#"{{"op":"decide",{AT},"if_match":"r0123456789abcdef","outcome":"establish"}}"#
        ));
        let term = op(r#"{"op":"term","term":{"text":"a","lang":"en","status":"preferred"}}"#);
        let memory = op(r#"{"op":"memory","pair":{"source":"a","target":"b","target_lang":"fr"}}"#);
        let recipe = op(r#"{"op":"recipe","field":"name","value":"x"}"#);
        let enforce = GateMode::Enforce;
        let person = actor("person");
        for o in [&set, &blind, &advise, &establish, &term, &memory, &recipe] {
            assert!(check(&person, o, GateMode::Report, Surface::Cli).is_none());
        }
        for who in [actor("agent"), actor("tool")] {
            assert!(check(&who, &set, enforce, Surface::Cli).is_none());
            assert!(check(&who, &advise, enforce, Surface::Cli).is_none());
            for o in [&blind, &establish, &term, &memory, &recipe] {
                let r = check(&who, o, enforce, Surface::Cli).expect("refused");
                assert!(!r.instead.is_empty());
            }
        }
        assert!(check(&actor("agent"), &set, GateMode::Report, Surface::Cli).is_some());
        assert!(check(&actor("tool"), &set, GateMode::Report, Surface::Cli).is_none());
        for o in [&set, &advise] {
            assert!(check(&actor("robot"), o, enforce, Surface::Cli).is_some());
        }
        let nameless = Actor {
            kind: "agent".into(),
            name: String::new(),
            session: "s".into(),
        };
        assert!(check(&nameless, &set, enforce, Surface::Cli).is_some());
    }
}
