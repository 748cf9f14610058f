/**
 * The client tests paste what `agent-bridge client add` prints; this holds the reader of that
 * output to both layouts (snippets indented under "Claude Code:", or flush left under
 * "Claude Code (run in a shell):"), so a change of layout cannot quietly break the pasting.
 */
import { expect, it } from "vitest"
import { parseClientAdd } from "./support/bridge.ts"

const KEY = "hal0bk_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG"
const CLAUDE = `claude mcp add --transport http --scope user agent-bridge http://127.0.0.1:8765/mcp/agents/mcp --header 'Authorization: Bearer ${KEY}'`
const TOML = [`[mcp_servers.agent-bridge]`, `url = "http://127.0.0.1:8765/mcp/agents/mcp"`, `http_headers = { "Authorization" = "Bearer ${KEY}" }`, `tool_timeout_sec = 660`]

const header = [`Added client 'x' (scopes: agents).`, ``, `Key (shown once, store it now): ${KEY}`, `MCP URL: http://127.0.0.1:8765/mcp/agents/mcp`, ``]

it("reads the indented layout", () => {
  const printed = [...header, "Claude Code:", `  ${CLAUDE}`, "", "Codex (~/.codex/config.toml):", ...TOML.map((l) => `  ${l}`), "", "Hermes (~/.hermes/config.yaml, then /reload-mcp):", "  mcp_servers:"].join("\n")
  expect(parseClientAdd(printed)).toEqual({ printed, key: KEY, claudeCommand: CLAUDE, codexToml: `${TOML.join("\n")}\n` })
})

it("reads the flush-left layout", () => {
  const printed = [...header, "Claude Code (run in a shell):", CLAUDE, "", "Codex (add to ~/.codex/config.toml):", ...TOML, "", "Hermes (add to ~/.hermes/config.yaml, then /reload-mcp):", "mcp_servers:"].join("\n")
  expect(parseClientAdd(printed)).toEqual({ printed, key: KEY, claudeCommand: CLAUDE, codexToml: `${TOML.join("\n")}\n` })
})

it("refuses output with no key or no Claude Code line", () => {
  expect(() => parseClientAdd("nothing here")).toThrow(/no key/)
  expect(() => parseClientAdd(header.join("\n"))).toThrow(/no "Claude Code" section/)
})
