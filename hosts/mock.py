"""Scripted model APIs on 127.0.0.1 for the real host CLIs (stdlib only).

Two servers, one per wire protocol:

- `AnthropicMock`: the Anthropic Messages API as Claude Code calls it (`ANTHROPIC_BASE_URL`):
  `POST /v1/messages` (streaming SSE or plain JSON, whichever the request asks for) and
  `POST /v1/messages/count_tokens`.
- `OpenAIMock`: the OpenAI Responses API as Codex calls it (a `model_providers` entry with
  `wire_api = "responses"`): `POST /v1/responses` (streaming SSE), `GET /v1/models`.

Each serves a *script*: a callable `script(turn, body) -> list[Action]` where `turn` is how many
model turns the conversation already holds (counted from the request itself, so a retried request
gets the same answer) and `body` is the decoded request. An action is `Text(str)` or
`Call(name, args)`; a turn of calls ends with stop reason `tool_use`, a turn of text alone ends the
turn. Every request is recorded (`requests`) with its path, headers and body, so a test can assert
what reached the model.

Only main-conversation requests (those that offer tools) go to the script; a side request a host
makes on its own (a title, a summary, a quota probe) is answered with `SIDE_TEXT` and recorded too.
"""

from __future__ import annotations

import itertools
import json
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

SIDE_TEXT = "ok"


@dataclass
class Text:
    text: str


@dataclass
class Call:
    name: str
    args: Any  # a dict for a function tool, a str for a free-form (custom) tool
    custom: bool = False  # Codex: a free-form tool (apply_patch) rather than a function
    namespace: str | None = None  # Codex: the namespace a tool is listed under (`mcp__kapi`)


@dataclass
class Request:
    method: str
    path: str
    headers: dict
    body: Any
    main: bool = False  # a main-conversation request (it offered tools)
    turn: int = -1


Script = Callable[[int, Any], list]


def end_script(turn: int, body: Any) -> list:
    return [Text("Done.")]


class _Server:
    """A ThreadingHTTPServer on 127.0.0.1:0 with a recorder, started on a daemon thread."""

    def __init__(self, script: Script | None = None):
        self.script: Script = script or end_script
        self.requests: list[Request] = []
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def _read(self):
                n = int(self.headers.get("content-length") or 0)
                raw = self.rfile.read(n) if n else b""
                try:
                    return json.loads(raw) if raw else None
                except ValueError:
                    return raw.decode("utf-8", "replace")

            def _json(self, code, obj):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _sse(self, events):
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.send_header("cache-control", "no-cache")
                self.send_header("connection", "close")
                self.end_headers()
                for name, data in events:
                    chunk = ""
                    if name:
                        chunk += f"event: {name}\n"
                    chunk += f"data: {json.dumps(data)}\n\n"
                    self.wfile.write(chunk.encode())
                    self.wfile.flush()
                self.close_connection = True

            def do_GET(self):
                owner._record(self, None)
                owner.handle_get(self)

            def do_POST(self):
                body = self._read()
                req = owner._record(self, body)
                try:
                    owner.handle_post(self, req)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def _record(self, handler, body) -> Request:
        keep = {k.lower(): v for k, v in handler.headers.items()
                if k.lower() not in ("authorization", "x-api-key")}
        req = Request(handler.command, handler.path, keep, body)
        with self.lock:
            self.requests.append(req)
        return req

    def start(self):
        self.thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self):
        return f"http://127.0.0.1:{self.port}"

    def main_requests(self):
        with self.lock:
            return [r for r in self.requests if r.main]

    def next_id(self, prefix):
        return f"{prefix}_{next(self.ids):04d}"

    def actions_for(self, req: Request, turn: int) -> list:
        req.main = True
        req.turn = turn
        try:
            actions = self.script(turn, req.body)
        except Exception as e:  # a script bug must not hang the host: end the turn, say why
            actions = [Text(f"mock script error: {e!r}")]
        return actions or [Text("Done.")]

    def handle_get(self, h):
        h._json(404, {"error": {"type": "not_found", "message": h.path}})


# ---------------------------------------------------------------------------------------------
# Anthropic Messages API


class AnthropicMock(_Server):
    def handle_post(self, h, req: Request):
        path = h.path.split("?", 1)[0]
        body = req.body if isinstance(req.body, dict) else {}
        if path.endswith("/count_tokens"):
            return h._json(200, {"input_tokens": 100})
        if not path.endswith("/v1/messages"):
            return h._json(404, {"type": "error", "error": {"type": "not_found_error", "message": path}})
        model = body.get("model", "claude-mock")
        if body.get("tools"):
            turn = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
            actions = self.actions_for(req, turn)
        else:
            actions = [Text(SIDE_TEXT)]
        blocks = []
        for a in actions:
            if isinstance(a, Text):
                blocks.append({"type": "text", "text": a.text})
            else:
                blocks.append({"type": "tool_use", "id": self.next_id("toolu"), "name": a.name, "input": a.args})
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        usage = {"input_tokens": 100, "output_tokens": 10, "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0}
        msg_id = self.next_id("msg")
        if not body.get("stream"):
            return h._json(200, {"id": msg_id, "type": "message", "role": "assistant", "model": model,
                                 "content": blocks, "stop_reason": stop, "stop_sequence": None,
                                 "usage": usage})
        ev = [("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 1}}})]
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                ev.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "text", "text": ""}}))
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "text_delta", "text": b["text"]}}))
            else:
                ev.append(("content_block_start", {"type": "content_block_start", "index": i,
                                                   "content_block": {"type": "tool_use", "id": b["id"],
                                                                     "name": b["name"], "input": {}}}))
                ev.append(("content_block_delta", {"type": "content_block_delta", "index": i,
                                                   "delta": {"type": "input_json_delta",
                                                             "partial_json": json.dumps(b["input"])}}))
            ev.append(("content_block_stop", {"type": "content_block_stop", "index": i}))
        ev.append(("message_delta", {"type": "message_delta",
                                     "delta": {"stop_reason": stop, "stop_sequence": None},
                                     "usage": {"output_tokens": 10}}))
        ev.append(("message_stop", {"type": "message_stop"}))
        h._sse(ev)


# ---------------------------------------------------------------------------------------------
# OpenAI Responses API


class OpenAIMock(_Server):
    def handle_get(self, h):
        if h.path.split("?", 1)[0].endswith("/models"):
            return h._json(200, {"object": "list", "data": [], "models": []})
        h._json(404, {"error": {"message": h.path, "type": "not_found"}})

    def handle_post(self, h, req: Request):
        path = h.path.split("?", 1)[0]
        body = req.body if isinstance(req.body, dict) else {}
        if not path.endswith("/responses"):
            return h._json(404, {"error": {"message": path, "type": "not_found"}})
        if body.get("tools"):
            turn = _openai_turns(body.get("input", []))
            actions = self.actions_for(req, turn)
        else:
            actions = [Text(SIDE_TEXT)]
        resp_id = self.next_id("resp")
        items = []
        for a in actions:
            if isinstance(a, Text):
                items.append({"type": "message", "role": "assistant", "id": self.next_id("msg"),
                              "status": "completed",
                              "content": [{"type": "output_text", "text": a.text, "annotations": []}]})
            elif a.custom:
                items.append({"type": "custom_tool_call", "id": self.next_id("ctc"), "status": "completed",
                              "call_id": self.next_id("call"), "name": a.name, "input": a.args})
            else:
                item = {"type": "function_call", "id": self.next_id("fc"), "status": "completed",
                        "call_id": self.next_id("call"), "name": a.name, "arguments": json.dumps(a.args)}
                if a.namespace:
                    item["namespace"] = a.namespace
                items.append(item)
        usage = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
                 "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 110}
        base = {"id": resp_id, "object": "response", "model": body.get("model", "mock"),
                "status": "in_progress", "output": []}
        ev = [("response.created", {"type": "response.created", "response": base})]
        for i, it in enumerate(items):
            ev.append(("response.output_item.added", {"type": "response.output_item.added",
                                                      "output_index": i, "item": it}))
            ev.append(("response.output_item.done", {"type": "response.output_item.done",
                                                     "output_index": i, "item": it}))
        ev.append(("response.completed", {"type": "response.completed",
                                          "response": {**base, "status": "completed", "output": items,
                                                       "usage": usage}}))
        h._sse(ev)


def _openai_turns(items) -> int:
    """How many model turns an input holds: each maximal run of model-produced items is one."""
    turns = 0
    in_model = False
    for it in items:
        if not isinstance(it, dict):
            continue
        t = it.get("type")
        model_item = t in ("function_call", "custom_tool_call", "local_shell_call", "reasoning") or (
            t == "message" and it.get("role") == "assistant")
        if model_item and not in_model:
            turns += 1
        in_model = model_item
    return turns


# ---------------------------------------------------------------------------------------------
# OpenAI Chat Completions (OpenCode's `@ai-sdk/openai-compatible` provider)


class ChatMock(_Server):
    """`POST …/chat/completions`, streamed as OpenCode asks (`stream: true`, with usage). A main
    request offers `tools`; the turn is the count of runs of assistant messages in `messages`,
    so a retried request gets the same answer. Other requests (titles) get SIDE_TEXT."""

    def handle_get(self, h):
        if h.path.split("?", 1)[0].endswith("/models"):
            return h._json(200, {"object": "list", "data": [{"id": "mock-model", "object": "model"}]})
        h._json(404, {"error": {"message": h.path, "type": "not_found"}})

    def handle_post(self, h, req: Request):
        path = h.path.split("?", 1)[0]
        body = req.body if isinstance(req.body, dict) else {}
        if not path.endswith("/chat/completions"):
            return h._json(404, {"error": {"message": path, "type": "not_found"}})
        if body.get("tools"):
            actions = self.actions_for(req, _chat_turns(body.get("messages", [])))
        else:
            actions = [Text(SIDE_TEXT)]
        cid, model = self.next_id("chatcmpl"), body.get("model", "mock-model")

        def chunk(delta, finish=None):
            return {"id": cid, "object": "chat.completion.chunk", "created": 0, "model": model,
                    "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

        chunks = [chunk({"role": "assistant", "content": ""})]
        calls = 0
        for a in actions:
            if isinstance(a, Text):
                chunks.append(chunk({"content": a.text}))
            else:
                call = {"index": calls, "id": self.next_id("call"), "type": "function",
                        "function": {"name": a.name, "arguments": ""}}
                chunks.append(chunk({"tool_calls": [call]}))
                chunks.append(chunk({"tool_calls": [{"index": calls,
                                                     "function": {"arguments": json.dumps(a.args)}}]}))
                calls += 1
        chunks.append(chunk({}, "tool_calls" if calls else "stop"))
        chunks.append({"id": cid, "object": "chat.completion.chunk", "created": 0, "model": model,
                       "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 10,
                                                "total_tokens": 110}})
        if not body.get("stream"):
            text = "".join(a.text for a in actions if isinstance(a, Text))
            return h._json(200, {"id": cid, "object": "chat.completion", "model": model, "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}})
        h.send_response(200)
        h.send_header("content-type", "text/event-stream")
        h.send_header("cache-control", "no-cache")
        h.send_header("connection", "close")
        h.end_headers()
        for c in chunks:
            h.wfile.write(f"data: {json.dumps(c)}\n\n".encode())
        h.wfile.write(b"data: [DONE]\n\n")
        h.wfile.flush()
        h.close_connection = True


def _chat_turns(messages) -> int:
    """How many model turns a chat holds: each maximal run of assistant messages is one."""
    turns, in_model = 0, False
    for m in messages or []:
        is_model = isinstance(m, dict) and m.get("role") == "assistant"
        if is_model and not in_model:
            turns += 1
        in_model = is_model
    return turns


# ---------------------------------------------------------------------------------------------
# Gemini API (Gemini CLI, `GOOGLE_GEMINI_BASE_URL`)

SIDE_JSON = {"reasoning": "mock", "next_speaker": "user", "model_choice": "flash",
             "complexity_reasoning": "mock", "complexity_score": 10, "title": "mock"}


class GeminiMock(_Server):
    """`POST /v1beta/models/<m>:streamGenerateContent?alt=sse` (and `:generateContent`). A main
    request offers `functionDeclarations`; the turn is the count of runs of `model` contents.
    Others (its model router, which asks for JSON) get SIDE_TEXT, or SIDE_JSON when JSON is asked."""

    def handle_post(self, h, req: Request):
        path = h.path.split("?", 1)[0]
        body = req.body if isinstance(req.body, dict) else {}
        if ":countTokens" in path:
            return h._json(200, {"totalTokens": 100})
        if ":streamGenerateContent" not in path and ":generateContent" not in path:
            return h._json(404, {"error": {"message": path, "code": 404}})
        tools = [fd.get("name") for t in body.get("tools") or [] for fd in t.get("functionDeclarations") or []]
        if tools:
            actions = self.actions_for(req, _gemini_turns(body.get("contents", [])))
        else:
            gc = body.get("generationConfig") or {}
            wants_json = gc.get("responseMimeType") == "application/json" or "responseSchema" in gc \
                or "responseJsonSchema" in gc
            actions = [Text(json.dumps(SIDE_JSON) if wants_json else SIDE_TEXT)]
        parts = [{"text": a.text} if isinstance(a, Text) else {"functionCall": {"name": a.name, "args": a.args}}
                 for a in actions]
        resp = {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP",
                                "index": 0}],
                "usageMetadata": {"promptTokenCount": 100, "candidatesTokenCount": 10, "totalTokenCount": 110},
                "modelVersion": "gemini-2.5-pro", "responseId": self.next_id("resp")}
        if ":streamGenerateContent" in path:
            h._sse([(None, resp)])
        else:
            h._json(200, resp)


def _gemini_turns(contents) -> int:
    """How many model turns a conversation holds: each maximal run of `model` contents is one."""
    turns, prev = 0, None
    for c in contents or []:
        role = c.get("role") if isinstance(c, dict) else None
        if role == "model" and prev != "model":
            turns += 1
        prev = role
    return turns
