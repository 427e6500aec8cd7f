//! The stdio transport: reads a line at a time, 16 MiB at most, and answers what is no message;
//! after stdin closes, it ends the session only once every request received is answered.
//!
//! rmcp types a message through serde's buffered `flatten`, which copies every string of it
//! several times (a 4 MB `check_text` took 28 MB before a tool ran). Here a line is parsed
//! once into a JSON value; a `tools/call`'s `arguments` object is taken out, the rest typed
//! by rmcp, and the object put back as the call's arguments. Some is rmcp's own behaviour,
//! kept: an unknown notification is ignored, a leading BOM and a `\r` before the `\n` are
//! allowed. Sending is rmcp's writer itself (each message a line, flushed). Unlike rmcp:
//! - A line that is not JSON is answered `Parse error` (-32700), a request MCP defines whose
//!   params do not fit it `Invalid params` (-32602), a request of a method MCP does not define
//!   `method not found: METHOD` (-32601), and other JSON of the wrong shape `Invalid request`
//!   (-32600), each with the request's id when it has one, where rmcp says nothing to the
//!   first, answers the method its bare name and the rest `Invalid request` with no id. An
//!   answer to a line with no readable id carries no `id` member: rmcp's error type leaves it
//!   out, as MCP says, where JSON-RPC 2.0 writes `null`.
//! - A line longer than [`MAX_LINE`] (16 MiB) is answered `Invalid request` (-32600), naming
//!   the limit, as soon as it passes it, to the `id` its first [`ID_WINDOW`] bytes give (a
//!   top-level `"id"` member before the params: how clients write a request), else with no
//!   id; its bytes past the limit are dropped as they arrive, so a line is never held past
//!   16 MiB, and the next line is served. rmcp drops such a line unanswered.
//! - When stdin closes, the session does not end at once ([`Unanswered`]): every request
//!   received and not yet answered is answered first (a slow call, a large answer, an
//!   `apply_edits` waiting its turn), then rmcp closes the writer and the server exits.
//!   rmcp's own end waits 5 seconds and then drops what is left (of 300 pipelined
//!   `check_file` calls, up to a third went unanswered). The wait is bounded by silence, not
//!   by a total: it ends when [`QUIET`] (5 minutes) passes with no answer written (a call
//!   that never answers does not keep a server whose client left alive), or when an answer
//!   cannot be written (stdout is closed: no one reads what is left). Each answer restarts
//!   it, so a long queue of calls that keep answering is never cut. A request the client
//!   cancelled (`notifications/cancelled`) is not waited for: rmcp drops its answer.
//! - A last line with no `\n` before stdin closes is read as a line, not dropped; a message
//!   that repeats a key is read with its last value (serde_json's `Value`), not refused;
//!   nothing is logged.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::RoleServer;
use rmcp::model::{
    ClientNotification, ClientRequest, ErrorCode, ErrorData, JsonRpcMessage, RequestId,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::async_rw::AsyncRwTransport;
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::time::Instant;

/// The longest line read (rmcp's `DEFAULT_MAX_LINE_LENGTH`), its `\n` included; a longer one
/// is answered `Invalid request`.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// How much of a line over [`MAX_LINE`] is searched for its `id`.
const ID_WINDOW: usize = 64 * 1024;

/// After stdin closes, how long the server waits for the requests still unanswered while no
/// answer is written.
const QUIET: Duration = Duration::from_secs(5 * 60);

/// MCP over stdin and stdout.
pub(super) struct Stdio {
    out: AsyncRwTransport<RoleServer, tokio::io::Empty, tokio::io::Stdout>,
    read: BufReader<tokio::io::Stdin>,
    /// The line being read. `receive` can be dropped mid-line (rmcp polls it in a
    /// `select!`): the bytes read so far stay here and the next call goes on.
    line: Vec<u8>,
    /// Dropping the rest of a line already too long.
    discarding: bool,
    /// The answer to a line that is no message being written: sent before the next line is read, as
    /// rmcp does (a peer that stops reading stops being read), and its task is awaited, not
    /// restarted, when `receive` was dropped while it ran.
    answering: Option<tokio::task::JoinHandle<Result<(), std::io::Error>>>,
    /// The requests handed to rmcp and not yet answered.
    unanswered: Arc<Unanswered>,
    /// Stdin has closed: `receive` only waits for the answers.
    ended: bool,
    /// A request that opens a session was handed to rmcp (`initialize`, or one of the
    /// 2026-07-28 lifecycle): before it, rmcp ends the session on any other message, so a
    /// notification or a response is dropped and a request refused here.
    initialized: bool,
}

impl Stdio {
    pub(super) fn new() -> Self {
        Stdio {
            out: AsyncRwTransport::new_server(tokio::io::empty(), tokio::io::stdout()),
            read: BufReader::new(tokio::io::stdin()),
            line: Vec::new(),
            discarding: false,
            answering: None,
            unanswered: Arc::new(Unanswered::default()),
            ended: false,
            initialized: false,
        }
    }

    /// Reads up to the next `\n` into `line`, or to the end of stdin; cancel-safe (bytes are
    /// taken from the buffer only as they are kept or dropped, with no await between).
    async fn read_line(&mut self) -> Line {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(bytes) => bytes,
                Err(_) => return Line::End,
            };
            if available.is_empty() {
                // A last line with no `\n` is a line (rmcp drops it).
                return if self.line.is_empty() {
                    Line::End
                } else {
                    Line::Whole
                };
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let step = if self.discarding {
                if newline.is_some() {
                    self.discarding = false;
                }
                None
            } else if self.line.len().saturating_add(take) > MAX_LINE {
                // The id is looked for in the line's start: what is held, then what arrived.
                let mut head = std::mem::take(&mut self.line);
                head.truncate(ID_WINDOW);
                let room = ID_WINDOW.saturating_sub(head.len()).min(take);
                head.extend_from_slice(&available[..room]);
                self.discarding = newline.is_none();
                Some(Line::Oversized(leading_id(&head)))
            } else {
                self.line.extend_from_slice(&available[..take]);
                newline.map(|_| Line::Whole)
            };
            self.read.consume(take);
            if let Some(line) = step {
                return line;
            }
        }
    }

    /// Sends the answer to a line that is no message, to be awaited before the next line.
    fn refuse(&mut self, error: ErrorData, id: Option<RequestId>) {
        let answer = TxJsonRpcMessage::<RoleServer>::error(error, id);
        self.answering = Some(tokio::spawn(self.out.send(answer)));
    }
}

enum Line {
    Whole,
    /// Over [`MAX_LINE`], with the id its start gives.
    Oversized(Option<RequestId>),
    End,
}

/// The requests received and not yet answered: what the session waits for once stdin closes.
/// A request is counted when `receive` hands it to rmcp and done once its answer is written
/// (or the client cancelled it); one id counts once (rmcp answers a repeated id once).
#[derive(Debug)]
struct Unanswered {
    state: Mutex<Waiting>,
    /// An answer was written, or could not be.
    changed: tokio::sync::Notify,
}

#[derive(Debug)]
struct Waiting {
    ids: HashSet<RequestId>,
    /// When an answer was last written (or stdin closed, if later).
    last: Instant,
    /// An answer could not be written: stdout is gone.
    broken: bool,
}

impl Default for Unanswered {
    fn default() -> Self {
        Unanswered {
            state: Mutex::new(Waiting {
                ids: HashSet::new(),
                last: Instant::now(),
                broken: false,
            }),
            changed: tokio::sync::Notify::new(),
        }
    }
}

impl Unanswered {
    fn with<T>(&self, f: impl FnOnce(&mut Waiting) -> T) -> Option<T> {
        self.state.lock().ok().map(|mut state| f(&mut state))
    }

    fn received(&self, id: &RequestId) {
        self.with(|s| s.ids.insert(id.clone()));
    }

    /// The answer to `id` was written (`sent`), or could not be.
    fn answered(&self, id: Option<&RequestId>, sent: bool) {
        self.with(|s| {
            if let Some(id) = id {
                s.ids.remove(id);
            }
            s.broken |= !sent;
            s.last = s.last.max(Instant::now());
        });
        self.changed.notify_one();
    }

    /// The client cancelled `id`: rmcp drops its answer, so it is not waited for.
    fn cancelled(&self, id: &RequestId) {
        self.with(|s| s.ids.remove(id));
        self.changed.notify_one();
    }

    /// Waits until every request received is answered, an answer cannot be written, or
    /// `quiet` ([`QUIET`]) passes with no answer written. Cancel-safe: the state is shared,
    /// and a notice that came while no one waited is kept (`notify_one`).
    async fn drained(&self, quiet: Duration) {
        loop {
            let deadline = self.with(|s| (!s.ids.is_empty() && !s.broken).then(|| s.last + quiet));
            let Some(Some(deadline)) = deadline else {
                return;
            };
            if tokio::time::timeout_at(deadline, self.changed.notified())
                .await
                .is_err()
            {
                return;
            }
        }
    }
}

impl Transport<RoleServer> for Stdio {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let id = match &item {
            JsonRpcMessage::Response(response) => Some(response.id.clone()),
            JsonRpcMessage::Error(error) => error.id.clone(),
            _ => None,
        };
        let unanswered = Arc::clone(&self.unanswered);
        let sending = self.out.send(item);
        async move {
            let sent = sending.await;
            unanswered.answered(id.as_ref(), sent.is_ok());
            sent
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            if let Some(answering) = self.answering.as_mut() {
                let sent = answering.await;
                self.answering = None;
                // As rmcp: an answer that cannot be written ends the session.
                if !matches!(sent, Ok(Ok(()))) {
                    return None;
                }
            }
            if self.ended {
                // rmcp keeps writing answers while this waits; `None` ends its session.
                self.unanswered.drained(QUIET).await;
                return None;
            }
            match self.read_line().await {
                Line::Whole => {}
                Line::Oversized(id) => {
                    self.refuse(oversized(), id);
                    continue;
                }
                Line::End => {
                    self.ended = true;
                    self.unanswered.with(|s| s.last = Instant::now());
                    continue;
                }
            }
            // The line's own buffer goes with it: a 4 MB call does not leave 4 MB behind.
            let line = std::mem::take(&mut self.line);
            match parse(&line) {
                Parsed::Message(message, opens) if !self.initialized => match &*message {
                    JsonRpcMessage::Request(request) if opens => {
                        self.initialized = true;
                        self.unanswered.received(&request.id);
                        return Some(*message);
                    }
                    JsonRpcMessage::Request(request) => {
                        let id = request.id.clone();
                        self.refuse(not_initialized(), Some(id));
                    }
                    // A notification or a response before `initialize`: nothing to answer.
                    _ => {}
                },
                Parsed::Message(message, _) => {
                    match &*message {
                        JsonRpcMessage::Request(request) => self.unanswered.received(&request.id),
                        JsonRpcMessage::Notification(notification) => {
                            if let ClientNotification::CancelledNotification(cancelled) =
                                &notification.notification
                                && let Some(id) = &cancelled.params.request_id
                            {
                                self.unanswered.cancelled(id);
                            }
                        }
                        _ => {}
                    }
                    return Some(*message);
                }
                Parsed::Ignored => {}
                Parsed::Refused(error, id) => self.refuse(error, id),
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        Transport::<RoleServer>::close(&mut self.out).await
    }
}

/// The answer to a line over [`MAX_LINE`].
fn oversized() -> ErrorData {
    ErrorData::invalid_request(
        format!(
            "Invalid request: the line is longer than {MAX_LINE} bytes (16 MiB), the most a \
             message may be; it was not read"
        ),
        Some(serde_json::json!({"max_line_bytes": MAX_LINE})),
    )
}

/// The answer to a request of a method this server does not serve.
pub(super) fn method_not_found(method: &str) -> ErrorData {
    ErrorData::new(
        ErrorCode::METHOD_NOT_FOUND,
        format!("method not found: {method}"),
        None,
    )
}

enum Parsed {
    /// A message, and whether it may open a session: `initialize`, or a request of the
    /// 2026-07-28 lifecycle (`server/discover`, a request whose `_meta` names its protocol
    /// version), which needs no `initialize`.
    Message(Box<RxJsonRpcMessage<RoleServer>>, bool),
    /// Blank, or a notification rmcp ignores.
    Ignored,
    /// Not JSON, or JSON that is no MCP message: the error it is answered with, and the id
    /// it is answered to when it has one.
    Refused(ErrorData, Option<RequestId>),
}

/// One line as rmcp reads it, the arguments of a call kept out of its typing.
fn parse(line: &[u8]) -> Parsed {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.is_empty() {
        return Parsed::Ignored;
    }
    let Ok(mut value) = serde_json::from_slice::<Value>(line) else {
        return Parsed::Refused(ErrorData::parse_error("Parse error", None), None);
    };
    let method = value
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let notification = value.get("id").is_none();
    // What an answer to a message that does not type is addressed to.
    let value_id = value
        .get("id")
        .and_then(|id| serde_json::from_value::<RequestId>(id.clone()).ok());
    let jsonrpc = value.get("jsonrpc").and_then(Value::as_str) == Some("2.0");
    let opens = !notification
        && (matches!(method.as_deref(), Some("initialize" | "server/discover"))
            || value
                .pointer("/params/_meta")
                .and_then(Value::as_object)
                .is_some_and(|meta| meta.contains_key("io.modelcontextprotocol/protocolVersion")));
    let arguments = match (method.as_deref(), value.get_mut("params")) {
        (Some("tools/call"), Some(Value::Object(params)))
            if matches!(params.get("arguments"), Some(Value::Object(_))) =>
        {
            params.remove("arguments")
        }
        _ => None,
    };
    match serde_json::from_value::<RxJsonRpcMessage<RoleServer>>(value) {
        Ok(mut message) => {
            // rmcp types a request of a method MCP defines whose params do not fit it, and
            // one of a method it does not define, as a custom request, and answers it
            // `Method not found` with the method's bare name (this server serves no custom
            // method). Refused here, a request before `initialize` is answered the same.
            if let JsonRpcMessage::Request(request) = &message
                && let ClientRequest::CustomRequest(custom) = &request.request
            {
                let error = if standard_request(&custom.method) {
                    ErrorData::invalid_params(
                        format!("Invalid params: they do not fit `{}`", custom.method),
                        None,
                    )
                } else {
                    method_not_found(&custom.method)
                };
                return Parsed::Refused(error, Some(request.id.clone()));
            }
            if let (JsonRpcMessage::Request(request), Some(Value::Object(arguments))) =
                (&mut message, arguments)
                && let ClientRequest::CallToolRequest(call) = &mut request.request
            {
                call.params.arguments = Some(arguments);
            }
            Parsed::Message(Box::new(message), opens)
        }
        Err(_) if method.as_deref().is_some_and(|m| ignored(m, notification)) => Parsed::Ignored,
        Err(error) => refused(&value_id, method.as_deref(), jsonrpc, &error),
    }
}

/// The answer to a request before `initialize`.
fn not_initialized() -> ErrorData {
    ErrorData::invalid_request(
        "the session is not initialized: send `initialize` first",
        None,
    )
}

/// The answer to JSON that is no message: `Invalid params` for a request MCP defines, sent
/// as JSON-RPC 2.0 with an id, that its params do not fit; `Invalid request` otherwise.
fn refused(
    id: &Option<RequestId>,
    method: Option<&str>,
    jsonrpc: bool,
    error: &serde_json::Error,
) -> Parsed {
    let request = jsonrpc && id.is_some() && method.is_some_and(standard_request);
    let error = if request {
        ErrorData::invalid_params(format!("Invalid params: {error}"), None)
    } else {
        ErrorData::invalid_request("Invalid request", None)
    };
    Parsed::Refused(error, id.clone())
}

/// The `id` member of the JSON object `head` begins with, when `head` holds it whole and it is
/// a number or a string: read member by member, skipping values, without parsing the rest.
fn leading_id(head: &[u8]) -> Option<RequestId> {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let mut at = skip_space(head, 0);
    if head.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        let key = skip_space(head, at);
        let key_end = value_end(head, key)?;
        at = skip_space(head, key_end);
        if head.get(at) != Some(&b':') {
            return None;
        }
        let value = skip_space(head, at + 1);
        let end = value_end(head, value)?;
        if head.get(key..key_end) == Some(b"\"id\"") {
            return serde_json::from_slice(head.get(value..end)?).ok();
        }
        at = skip_space(head, end);
        if head.get(at) != Some(&b',') {
            return None;
        }
        at += 1;
    }
}

fn skip_space(bytes: &[u8], from: usize) -> usize {
    let spaces = bytes
        .get(from..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .count();
    from + spaces
}

/// Where the JSON value starting at `from` ends, if `bytes` holds its end: a string to its
/// closing quote, an object or array to its closing bracket (brackets in strings skipped),
/// anything else to the next delimiter.
fn value_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut at = from;
    loop {
        let byte = *bytes.get(at)?;
        at += 1;
        if in_string {
            match byte {
                b'\\' => at += 1,
                b'"' => {
                    in_string = false;
                    if depth == 0 {
                        return Some(at);
                    }
                }
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    return Some(at);
                }
            }
            b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n' if depth == 0 => {
                return (at - 1 > from).then_some(at - 1);
            }
            _ => {}
        }
    }
}

/// A request MCP defines that a client sends a server (`roots/list`, `sampling/createMessage`
/// and `elicitation/create` go the other way: a client sending one is answered `Method not
/// found`, as any method this server does not serve).
fn standard_request(method: &str) -> bool {
    standard(method)
        && !method.starts_with("notifications/")
        && !matches!(
            method,
            "roots/list" | "sampling/createMessage" | "elicitation/create"
        )
}

/// rmcp's compatibility rule: a notification of a method MCP does not define (an LSP
/// message), or any `notifications/…` it does not know, is ignored rather than answered.
fn ignored(method: &str, notification: bool) -> bool {
    (notification && !standard(method))
        || (method.starts_with("notifications/") && !standard_notification(method))
}

fn standard(method: &str) -> bool {
    matches!(
        method,
        "initialize"
            | "ping"
            | "server/discover"
            | "prompts/get"
            | "prompts/list"
            | "resources/list"
            | "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "resources/templates/list"
            | "subscriptions/listen"
            | "tools/call"
            | "tools/list"
            | "completion/complete"
            | "elicitation/create"
            | "logging/setLevel"
            | "roots/list"
            | "sampling/createMessage"
    ) || standard_notification(method)
}

fn standard_notification(method: &str) -> bool {
    matches!(
        method,
        "notifications/cancelled"
            | "notifications/initialized"
            | "notifications/message"
            | "notifications/progress"
            | "notifications/prompts/list_changed"
            | "notifications/resources/list_changed"
            | "notifications/resources/updated"
            | "notifications/roots/list_changed"
            | "notifications/subscriptions/acknowledged"
            | "notifications/tools/list_changed"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"check_text","arguments":{arguments}}}}}"#
        )
    }

    #[test]
    fn a_calls_arguments_come_back_as_sent() {
        let line = call(r#"{"text":"Hello.\n","format":"markdown"}"#);
        let Parsed::Message(message, _) = parse(line.as_bytes()) else {
            panic!("not a message");
        };
        let JsonRpcMessage::Request(request) = *message else {
            panic!("not a request");
        };
        let ClientRequest::CallToolRequest(call) = request.request else {
            panic!("not a call");
        };
        assert_eq!(call.params.name, "check_text");
        let arguments = call.params.arguments.unwrap_or_default();
        assert_eq!(arguments["text"], "Hello.\n");
        assert_eq!(arguments["format"], "markdown");
    }

    /// What rmcp's own transport makes of a line: the message typed from it whole.
    fn rmcps(line: &[u8]) -> Option<Value> {
        let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line)
            .ok()
            .and_then(|m| serde_json::to_value(m).ok())
    }

    #[test]
    fn every_line_reads_as_rmcp_reads_it() {
        let lines: Vec<Vec<u8>> = [
            call(r#"{"text":"Hello.\n"}"#),
            call(r#""text""#),
            call("null"),
            call("[1]"),
            r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x"}}"#.into(),
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#.into(),
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
            r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":3}}"#
                .into(),
            r#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":2,"result":{}}"#.into(),
            r#"{"jsonrpc":"2.0","id":3,"method":"foo/bar","params":{}}"#.into(),
        ]
        .into_iter()
        .map(String::into_bytes)
        .collect();
        for line in &lines {
            let ours = match parse(line) {
                Parsed::Message(m, _) => serde_json::to_value(*m).ok(),
                // Where kapi answers `Invalid params` or `Method not found`, rmcp typed a
                // custom request (which it answers `Method not found`).
                Parsed::Refused(error, _) if matches!(error.code.0, -32602 | -32601) => {
                    assert!(rmcps(line).is_some(), "{}", String::from_utf8_lossy(line));
                    continue;
                }
                Parsed::Ignored | Parsed::Refused(..) => None,
            };
            assert_eq!(ours, rmcps(line), "{}", String::from_utf8_lossy(line));
        }
    }

    /// The code and id a line is refused with, if it is.
    fn refusal(line: &[u8]) -> Option<(i32, Option<RequestId>)> {
        match parse(line) {
            Parsed::Refused(error, id) => Some((error.code.0, id)),
            _ => None,
        }
    }

    #[test]
    fn what_is_no_message_is_ignored_or_refused_as_json_rpc_says() {
        assert_eq!(refusal(b"not json\n"), Some((-32700, None)));
        assert_eq!(refusal(br#"{"id":1,"method":"#), Some((-32700, None)));
        assert!(matches!(parse(b"\r\n"), Parsed::Ignored));
        let unknown = br#"{"jsonrpc":"2.0","method":"notifications/whatever","params":5}"#;
        assert!(matches!(parse(unknown), Parsed::Ignored));
        let one = Some(RequestId::Number(1));
        assert_eq!(
            refusal(br#"{"jsonrpc":"2.0","id":1}"#),
            Some((-32600, one.clone()))
        );
        assert_eq!(refusal(b"[1,2]"), Some((-32600, None)));
        assert_eq!(
            refusal(br#"{"jsonrpc":"1.0","id":"x","method":"ping"}"#),
            Some((-32600, Some(RequestId::String("x".into()))))
        );
        let params = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":7}}"#;
        assert_eq!(refusal(params), Some((-32602, one.clone())));
        let params = br#"{"jsonrpc":"2.0","id":1,"method":"resources/read","params":[]}"#;
        assert_eq!(refusal(params), Some((-32602, one.clone())));
        // A method MCP does not define, or one the server sends, not serves: named.
        let theirs = br#"{"jsonrpc":"2.0","id":1,"method":"roots/list"}"#;
        assert_eq!(refusal(theirs), Some((-32601, one.clone())));
        let Parsed::Refused(error, _) = parse(br#"{"jsonrpc":"2.0","id":1,"method":"foo/bar"}"#)
        else {
            panic!("not refused");
        };
        assert_eq!(error.message, "method not found: foo/bar");
        // Not a request: never answered (rmcp hands it to the server, which ignores it).
        assert_eq!(refusal(br#"{"jsonrpc":"2.0","method":"foo/bar"}"#), None);
        let bom = b"\xEF\xBB\xBF{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n";
        assert!(matches!(parse(bom), Parsed::Message(..)));
    }

    #[test]
    fn an_oversized_lines_id_is_read_from_its_start() {
        let id = |head: &str| leading_id(head.as_bytes());
        let seven = Some(RequestId::Number(7));
        assert_eq!(
            id(r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"#),
            seven
        );
        assert_eq!(
            id("\u{feff} { \"jsonrpc\" : \"2.0\" ,\n \"id\" : \"a,\\\"}\" , \"params\""),
            Some(RequestId::String("a,\"}".into()))
        );
        // Skipped: values before it, however nested, and the `id`s inside them.
        assert_eq!(
            id(r#"{"meta":{"id":1,"x":["]",{"id":2}]},"s":"\"id\":3","id":7,"params":"#),
            seven
        );
        // Not whole in the window, after the params, not a request id, not an object.
        assert_eq!(id(r#"{"jsonrpc":"2.0","id":12"#), None);
        assert_eq!(
            id(r#"{"method":"tools/call","params":{"arguments":{"text":"xx"#),
            None
        );
        assert_eq!(id(r#"{"id":null,"method":"x","#), None);
        assert_eq!(id(r#"{"id":1.5,"method":"x","#), None);
        assert_eq!(id(r#"[{"id":7}"#), None);
        assert_eq!(id(""), None);
    }

    /// The wait after stdin closes ends once the last request is answered, at once when an
    /// answer cannot be written, and after `quiet` with nothing answered; a cancelled request
    /// is not waited for.
    #[test]
    fn the_wait_after_stdin_closes_ends_when_every_request_is_answered() {
        let Ok(runtime) = tokio::runtime::Builder::new_current_thread()
            .enable_time()
            .build()
        else {
            panic!("a runtime");
        };
        let forever = Duration::from_secs(24 * 3600);
        let (one, two) = (RequestId::Number(1), RequestId::String("two".into()));
        runtime.block_on(async {
            let unanswered = Arc::new(Unanswered::default());
            unanswered.drained(forever).await;
            unanswered.received(&one);
            unanswered.received(&two);
            unanswered.received(&two);
            let waiting = tokio::spawn({
                let unanswered = Arc::clone(&unanswered);
                async move { unanswered.drained(forever).await }
            });
            tokio::task::yield_now().await;
            unanswered.answered(Some(&two), true);
            tokio::task::yield_now().await;
            assert!(!waiting.is_finished(), "1 is still unanswered");
            // What the client cancelled is not waited for.
            unanswered.cancelled(&one);
            assert!(waiting.await.is_ok());

            unanswered.received(&one);
            unanswered.answered(None, false);
            unanswered.drained(forever).await;

            let silent = Unanswered::default();
            silent.received(&one);
            silent.drained(Duration::from_millis(1)).await;
        });
    }
}
