/**
 * The daemon as the client tools meet it: a real `agent-bridge serve` process on a free loopback
 * port with the built-in simulator as its Hermes, and a client admitted with the real
 * `agent-bridge client add` CLI, whose printed setup snippets the tests paste into each client.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { promisify } from "node:util"
import * as YAML from "yaml"
import { type DaemonProcess, spawnDaemon } from "../../support/daemonProcess.ts"
import { freeLoopbackPort } from "../../support/freePort.ts"
import { REPO } from "./tools.ts"

const execFileP = promisify(execFile)

export interface ClientSetup {
  /** `client add`'s whole output. */
  readonly printed: string
  readonly key: string
  /** The Claude Code command line, as printed. */
  readonly claudeCommand: string
  /** The Codex config.toml tables, as printed (indentation removed). */
  readonly codexToml: string
}

export interface Bridge {
  readonly url: string
  readonly mcpUrl: string
  readonly daemon: DaemonProcess
  readonly setup: ClientSetup
  /** An MCP client of the project's own SDK with the admitted client's key, to see what the daemon holds. */
  readonly inspect: () => Promise<Client>
  readonly close: () => Promise<void>
}

/**
 * The block under the heading that starts with `heading` in `client add`'s output, up to the next
 * blank line, without the two-space indent older layouts put before each snippet line. Matching
 * the heading's start keeps this reading both "Claude Code:" and "Claude Code (run in a shell):".
 */
const block = (printed: string, heading: string): ReadonlyArray<string> => {
  const lines = printed.split("\n")
  const at = lines.findIndex((l) => l.startsWith(heading) && l.trimEnd().endsWith(":"))
  if (at < 0) throw new Error(`no "${heading}" section in client add's output:\n${printed}`)
  const out: Array<string> = []
  for (const l of lines.slice(at + 1)) {
    if (l.trim() === "") break
    out.push(l.replace(/^ {2}/, ""))
  }
  return out
}

export const parseClientAdd = (printed: string): ClientSetup => {
  const key = /Key \(shown once, store it now\): (\S+)/.exec(printed)?.[1]
  if (key === undefined) throw new Error(`no key in client add's output:\n${printed}`)
  const claude = block(printed, "Claude Code")
  if (claude.length !== 1) throw new Error(`expected one Claude Code command line, got:\n${claude.join("\n")}`)
  return { printed, key, claudeCommand: claude[0]!, codexToml: block(printed, "Codex").join("\n") + "\n" }
}

export const startBridge = async (dir: string, clientName: string): Promise<Bridge> => {
  const port = await freeLoopbackPort()
  const configFile = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(configFile, YAML.stringify({ bridge: { port, data_dir: path.join(dir, "data") } }))
  const added = await execFileP(process.execPath, [path.join(REPO, "bin", "agent-bridge.js"), "client", "add", clientName, "--config", configFile], {
    cwd: REPO,
    timeout: 120_000
  })
  const setup = parseClientAdd(added.stdout)
  const daemon = await spawnDaemon({ configFile, port, readyTimeoutMs: 120_000 })
  const url = daemon.url
  const mcpUrl = `${url}/mcp/agents/mcp`
  const opened: Array<Client> = []
  return {
    url,
    mcpUrl,
    daemon,
    setup,
    inspect: async () => {
      const client = new Client({ name: "agent-bridge-clients-test", version: "0.0.0" })
      await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${setup.key}` } } }))
      opened.push(client)
      return client
    },
    close: async () => {
      await Promise.all(opened.map((c) => c.close().catch(() => undefined)))
      await daemon.kill("SIGTERM")
    }
  }
}

/** The structured content of a tool result, or its text parsed as JSON. */
export const structuredOf = (result: unknown): Record<string, any> => {
  const r = result as { structuredContent?: Record<string, any>; content?: ReadonlyArray<{ type: string; text?: string }> }
  if (r.structuredContent !== undefined) return r.structuredContent
  const text = r.content?.find((c) => c.type === "text")?.text
  return text === undefined ? {} : (JSON.parse(text) as Record<string, any>)
}
