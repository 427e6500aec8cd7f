// The official MCP TypeScript SDK's client (pinned in hosts/package-lock.json) against
// `kapi mcp` over stdio: tools/list, then one call that succeeds and calls that fail. The SDK's
// `callTool` validates `structuredContent` against the tool's declared `outputSchema` (with
// ajv), in error results too, and throws on a mismatch; so kapi's answers must conform and its
// tool errors must reach the caller as kapi's message. Prints one JSON line per check.
//
// usage: node sdk_client.mjs KAPI_BIN PROJECT_DIR
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [kapi, project] = process.argv.slice(2);
const transport = new StdioClientTransport({
  command: kapi,
  args: ["mcp", "--all", "--project", "kapi.yaml"],
  cwd: project,
  stderr: "ignore",
});
const client = new Client({ name: "kapi-sdk-check", version: "1" });
const report = (name, ok, detail) => console.log(JSON.stringify({ name, ok, detail }));

await client.connect(transport);
const { tools } = await client.listTools();
report("tools/list offers check_file", tools.some((t) => t.name === "check_file"), tools.length);

const calls = [
  ["a passing check_file conforms to its outputSchema", "check_file", { path: "docs/good.md" }, false, "kapi.check/v1"],
  ["a check_file error reaches the caller as kapi's message", "check_file", { path: "docs/missing.md" }, true, "no such file"],
  ["a read_blocks error reaches the caller as kapi's message", "read_blocks", { doc: "../outside.md" }, true, "outside the project"],
  ["a context_search usage error reaches the caller as kapi's message", "context_search", { query: "  " }, true, "name a word"],
];
for (const [name, tool, args, isError, needle] of calls) {
  try {
    const result = await client.callTool({ name: tool, arguments: args });
    const text = (result.content || []).map((c) => c.text || "").join("\n");
    const ok = Boolean(result.isError) === isError && text.includes(needle);
    report(name, ok, text.slice(0, 300));
  } catch (e) {
    report(name, false, `the SDK threw: ${e.message}`.slice(0, 400));
  }
}
// A refused change set is an error result that carries its kapi.change-result/v1: the SDK
// validates it against apply_edits' outputSchema, and it conforms.
try {
  const read = await client.callTool({ name: "read_blocks", arguments: { doc: "docs/good.md" } });
  const block = read.structuredContent.blocks[0];
  const stale = {
    operations: [{ op: "set_content", at: block.ref, if_match: "r0000000000000000", content: "Hi." }],
  };
  const result = await client.callTool({ name: "apply_edits", arguments: stale });
  const schema = result.structuredContent && result.structuredContent.schema;
  report("a refused apply_edits carries a conforming kapi.change-result/v1",
    Boolean(result.isError) && schema === "kapi.change-result/v1", JSON.stringify(result.structuredContent).slice(0, 300));
} catch (e) {
  report("a refused apply_edits carries a conforming kapi.change-result/v1", false, `the SDK threw: ${e.message}`.slice(0, 400));
}
await client.close();
