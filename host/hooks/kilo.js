// kapi's Kilo Code plugin (Kilo 7.x), written by `kapi init`: before an edit tool writes a
// file it asks `kapi hook pre-edit` (a refusal stops the edit and is the tool's result); after,
// `kapi hook post-edit` (its findings are added to the tool's result, for the model); when the
// session goes idle, `kapi hook stop` (a block is sent as the next message, once: the stop that
// follows it is let through). Without `kapi` on PATH it does nothing. Edit it and kapi leaves
// it alone.
import { spawnSync } from "node:child_process"
import path from "node:path"

const EDIT_TOOLS = new Set(["edit", "write", "patch", "multiedit", "apply_patch"])

function kapi(hook, payload, cwd) {
  const run = spawnSync("kapi", ["hook", hook, "--host", "claude-code"], {
    cwd,
    input: JSON.stringify(payload),
    encoding: "utf8",
    timeout: hook === "pre-edit" ? 30000 : hook === "post-edit" ? 120000 : 300000,
  })
  if (run.error || run.status !== 0 || !run.stdout) return null
  try {
    return JSON.parse(run.stdout)
  } catch {
    return null
  }
}

function edited(args, directory) {
  const file = args && (args.filePath || args.file_path || args.path)
  return file ? path.resolve(directory, file) : null
}

// The sessions whose last stop kapi held: their next stop follows kapi's message.
const held = new Set()

const KapiPlugin = async ({ directory, client }) => ({
  "tool.execute.before": async (input, output) => {
    if (!EDIT_TOOLS.has(input.tool)) return
    const file = edited(output.args, directory)
    if (!file) return
    const answer = kapi("pre-edit", {
      session_id: input.sessionID, cwd: directory, hook_event_name: "PreToolUse",
      tool_name: "Write", tool_input: { file_path: file },
    }, directory)
    const verdict = answer && answer.hookSpecificOutput
    if (verdict && verdict.permissionDecision === "deny") {
      throw new Error(verdict.permissionDecisionReason || "kapi refused the edit")
    }
  },
  "tool.execute.after": async (input, output) => {
    if (!EDIT_TOOLS.has(input.tool)) return
    const file = edited(input.args, directory)
    if (!file) return
    const answer = kapi("post-edit", {
      session_id: input.sessionID, cwd: directory, hook_event_name: "PostToolUse",
      tool_name: "Write", tool_input: { file_path: file }, tool_response: {},
    }, directory)
    if (!answer) return
    const said = [answer.reason, answer.hookSpecificOutput && answer.hookSpecificOutput.additionalContext]
      .filter(Boolean).join("\n")
    if (said) output.output = `${output.output || ""}\n\n${said}`
  },
  event: async ({ event }) => {
    if (event.type !== "session.idle") return
    const session = event.properties && event.properties.sessionID
    if (!session) return
    const answer = kapi("stop", {
      session_id: session, cwd: directory, hook_event_name: "Stop",
      stop_hook_active: held.has(session),
    }, directory)
    if (!answer || answer.decision !== "block" || !answer.reason) {
      held.delete(session)
      return
    }
    held.add(session)
    try {
      await client.session.promptAsync({
        path: { id: session }, body: { parts: [{ type: "text", text: answer.reason }] },
      })
    } catch {
      held.delete(session)
    }
  },
})

export default { id: "kapi", server: KapiPlugin }
