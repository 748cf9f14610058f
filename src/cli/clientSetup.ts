/**
 * Ready-to-paste setup for the three clients we support, generated from one place so the README,
 * `client add` and the tests agree. Long tool calls: every snippet raises the client's tool timeout
 * above the bridge's longest wait (600 s), and the bridge also sends progress notifications.
 */
import * as YAML from "yaml"

export interface SetupInput {
  /** The MCP endpoint, e.g. http://127.0.0.1:8765/mcp/agents/mcp */
  readonly url: string
  readonly key: string
  /** The server name the client registers (Hermes prefixes tools with mcp_<server>_). */
  readonly serverName?: string
}

export const DEFAULT_SERVER_NAME = "agent-bridge"
/** Seconds: above the longest `agent_run_wait` (600 s) plus slack. */
export const CLIENT_TOOL_TIMEOUT_S = 660

const shellQuote = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

export const claudeCodeCommand = ({ url, key, serverName = DEFAULT_SERVER_NAME }: SetupInput): string =>
  ["claude", "mcp", "add", "--transport", "http", serverName, url, "--header", `Authorization: Bearer ${key}`]
    .map(shellQuote)
    .join(" ")

const tomlString = (s: string) => JSON.stringify(s)
const tomlKey = (s: string) => (/^[A-Za-z0-9_-]+$/.test(s) ? s : tomlString(s))

export const codexToml = ({ url, key, serverName = DEFAULT_SERVER_NAME }: SetupInput): string =>
  [
    `[mcp_servers.${tomlKey(serverName)}]`,
    `url = ${tomlString(url)}`,
    `http_headers = { "Authorization" = ${tomlString(`Bearer ${key}`)} }`,
    `tool_timeout_sec = ${CLIENT_TOOL_TIMEOUT_S}`,
    ""
  ].join("\n")

export const hermesYaml = ({ url, key, serverName = DEFAULT_SERVER_NAME }: SetupInput): string =>
  YAML.stringify({
    mcp_servers: {
      [serverName.replace(/-/g, "_")]: { url, headers: { Authorization: `Bearer ${key}` }, timeout: CLIENT_TOOL_TIMEOUT_S }
    }
  })

export const setupText = (input: SetupInput): string =>
  [
    "Claude Code:",
    `  ${claudeCodeCommand(input)}`,
    "",
    "Codex (~/.codex/config.toml):",
    ...codexToml(input).trimEnd().split("\n").map((l) => `  ${l}`),
    "",
    "Hermes (~/.hermes/config.yaml):",
    ...hermesYaml(input).trimEnd().split("\n").map((l) => `  ${l}`)
  ].join("\n")
