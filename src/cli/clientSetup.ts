/**
 * Ready-to-paste setup for the three clients we support (Claude Code, Codex, Hermes), generated from
 * this one place so `client add`, docs/CONNECT.md and the tests agree. Tests parse each snippet the
 * way its client does (a shell for the Claude Code command line, TOML for Codex, YAML plus Hermes's
 * tool naming rule for Hermes).
 *
 * Long tool calls: Codex and Hermes take a per-server tool timeout, which each snippet raises above
 * the bridge's longest wait (`WAIT_MAX_SECONDS`); Claude Code has no per-server setting (its timeout comes from
 * the environment). The bridge does not rely on either: runs start at once, waits are bounded and
 * can be repeated, and waits send progress notifications (see docs/CONNECT.md).
 */
import * as YAML from "yaml"
import { BRIDGE_KEY_PREFIX } from "../domain/bridgeKeys.ts"
import { WAIT_MAX_SECONDS } from "../domain/limits.ts"

export interface SetupInput {
  /** The agents MCP endpoint, e.g. http://127.0.0.1:8765/mcp/agents/mcp */
  readonly url: string
  readonly key: string
  /** The direct memory endpoint, for a key with the `memory` scope; it gets its own server entry. */
  readonly memoryUrl?: string | undefined
  /** The server name the client registers; Hermes prefixes tools with `mcp_<server>_`. */
  readonly serverName?: string
}

export const DEFAULT_SERVER_NAME = "agent-bridge"
/** Seconds: above the longest `agent_run_wait` / `agent_run(wait_s)`, plus a minute of slack. */
export const CLIENT_TOOL_TIMEOUT_S = WAIT_MAX_SECONDS + 60

/** What docs/CONNECT.md shows: the default listener and a key placeholder in the key's own alphabet. */
export const DOC_EXAMPLE: SetupInput = { url: "http://127.0.0.1:8765/mcp/agents/mcp", key: `${BRIDGE_KEY_PREFIX}YOUR_KEY` }

interface ServerEntry {
  readonly name: string
  readonly url: string
}

/** The agents server, then the memory server when the key may use it. */
export const serverEntries = ({ url, memoryUrl, serverName = DEFAULT_SERVER_NAME }: SetupInput): ReadonlyArray<ServerEntry> => [
  { name: serverName, url },
  ...(memoryUrl === undefined ? [] : [{ name: `${serverName}-memory`, url: memoryUrl }])
]

/** POSIX shell quoting: bare when every character is safe, else single quotes. */
const shellQuote = (s: string) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`)

/**
 * `claude mcp add` per server. User scope, so the bridge is there in every project. `--header` is a
 * variadic option in Claude Code's CLI, so it comes after the name and URL: placed before them it
 * would swallow both as more headers.
 */
export const claudeCodeCommands = (input: SetupInput): ReadonlyArray<string> =>
  serverEntries(input).map(({ name, url }) =>
    ["claude", "mcp", "add", "--transport", "http", "--scope", "user", name, url, "--header", `Authorization: Bearer ${input.key}`]
      .map(shellQuote)
      .join(" ")
  )

/** TOML basic strings accept JSON's escapes for everything JSON.stringify emits from a well-formed string. */
const tomlString = (s: string) => JSON.stringify(s)
const tomlKey = (s: string) => (/^[A-Za-z0-9_-]+$/.test(s) ? s : tomlString(s))

/**
 * Codex's per-server approval mode for MCP tools (`auto`, `prompt` or `approve`). Left at `auto`,
 * Codex asks before a tool call; `codex exec` runs with the approval policy `never`, so it cannot
 * ask and refuses the call ("MCP tool call requires approval, but approval policy is never").
 * `approve` lets the bridge's tools run: the bridge already scopes what a key can do.
 */
export const CODEX_APPROVAL_MODE = "approve"

/**
 * `~/.codex/config.toml` tables. Codex's `tool_timeout_sec` defaults to 60 s, below the bridge's
 * longest wait; `default_tools_approval_mode` lets non-interactive Codex (`codex exec`) call the tools.
 */
export const codexToml = (input: SetupInput): string =>
  serverEntries(input)
    .map(({ name, url }) =>
      [
        `[mcp_servers.${tomlKey(name)}]`,
        `url = ${tomlString(url)}`,
        `http_headers = { "Authorization" = ${tomlString(`Bearer ${input.key}`)} }`,
        `tool_timeout_sec = ${CLIENT_TOOL_TIMEOUT_S}`,
        `default_tools_approval_mode = ${tomlString(CODEX_APPROVAL_MODE)}`,
        ""
      ].join("\n")
    )
    .join("\n")

/** Hermes turns `-` and `.` into `_` in server names itself; the snippet writes the name it will use. */
export const hermesServerName = (name: string) => name.replace(/[-.]/g, "_")

/** `mcp_servers` entries for `~/.hermes/config.yaml`. Hermes's per-server `timeout` defaults to 120 s. */
export const hermesYaml = (input: SetupInput): string =>
  YAML.stringify({
    mcp_servers: Object.fromEntries(
      serverEntries(input).map(({ name, url }) => [
        hermesServerName(name),
        { url, headers: { Authorization: `Bearer ${input.key}` }, timeout: CLIENT_TOOL_TIMEOUT_S }
      ])
    )
  })

/**
 * What `client add` prints: a heading per client, then its snippet exactly as it is pasted (flush
 * left: an indented YAML or TOML block pasted into a file nests or breaks there).
 */
export const setupText = (input: SetupInput): string =>
  [
    "Claude Code (run in a shell):",
    ...claudeCodeCommands(input),
    "",
    "Codex (add to ~/.codex/config.toml):",
    codexToml(input).trimEnd(),
    "",
    "Hermes (add to ~/.hermes/config.yaml, then /reload-mcp):",
    hermesYaml(input).trimEnd()
  ].join("\n")
