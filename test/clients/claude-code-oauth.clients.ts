/**
 * Claude Code over OAuth (issue 40): a daemon with `oauth.issuer`, Claude Code given only the MCP
 * URL (`claude mcp add --transport http`, no header), which it lists as needing authentication.
 * `claude mcp login agent-bridge` (it refuses to run without a terminal, so it runs in tmux as the
 * interactive case of claude-code.clients.ts does) discovers the bridge's authorization server from
 * the 401's metadata, registers itself (Dynamic Client Registration; Client ID Metadata Documents
 * are off here, since Claude Code's document would live off the machine), and "opens a browser"
 * (its BROWSER is a script that records the URL), listening on a loopback port for the redirect.
 * The test is that browser: it follows the URL to the bridge's waiting page; the operator approves
 * the request in the inbox (signed in with the admin key); the browser goes on to Claude Code's
 * callback. Then `claude -p`, with the fake model API on loopback, delegates with the token Claude
 * Code stored, and the run is the new OAuth client's own. Nothing tried to leave loopback, and the
 * daemon's log holds none of the tokens.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as YAML from "yaml"
import { afterAll, beforeAll, expect, it } from "vitest"
import { makeClient } from "../inbox/fetchClient.ts"
import { Browser } from "../oauth/support.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { structuredOf } from "./support/bridge.ts"
import { type FakeModelServer, startFakeAnthropic } from "./support/fakeAnthropic.ts"
import { FINAL_PREFIX } from "./support/fakeModel.ts"
import { type ProxySink, startProxySink } from "./support/proxySink.ts"
import { startTerminal, TMUX, type TerminalSession } from "./support/tmux.ts"
import { BIN, describeRun, makeHome, removeDir, requireInstalled, run, toolEnv } from "./support/tools.ts"

const PREFIX = "mcp__agent-bridge__"
const TOOLS = ["agents_list", "agent_run", "agent_run_wait"].map((t) => `${PREFIX}${t}`)

let dir: string
let daemon: DaemonProcess
let sink: ProxySink
let model: FakeModelServer
let home: string
let env: Record<string, string>
let terminal: TerminalSession | undefined

beforeAll(async () => {
  requireInstalled(`${BIN}/claude`, TMUX)
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-claude-oauth-"))
  sink = await startProxySink()
  model = await startFakeAnthropic(PREFIX)
  const port = await freeLoopbackPort()
  fs.writeFileSync(path.join(dir, "agent-bridge.yaml"), YAML.stringify({
    bridge: { port, data_dir: path.join(dir, "data") },
    oauth: { issuer: `http://127.0.0.1:${port}`, client_metadata_documents: false }
  }))
  daemon = await spawnDaemon({ configFile: path.join(dir, "agent-bridge.yaml"), port, readyTimeoutMs: 120_000 })
  home = makeHome(dir, "home")
  const browser = path.join(dir, "browser.sh")
  fs.writeFileSync(browser, `#!/bin/sh\necho "$1" >> '${path.join(dir, "opened.txt")}'\n`, { mode: 0o755 })
  env = toolEnv({
    home,
    proxy: sink.url,
    extra: {
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-ant-fake-key-for-loopback",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_BUG_COMMAND: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      ENABLE_TOOL_SEARCH: "false",
      CLAUDE_CODE_MODEL_CATALOG: "off",
      CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1",
      BROWSER: browser
    }
  })
}, 180_000)

afterAll(async () => {
  await terminal?.kill()
  await daemon?.kill("SIGTERM")
  await model?.close()
  await sink?.close()
  removeDir(dir)
})

/** The first URL Claude Code opened in the "browser". */
const opened = async (seen: () => string): Promise<string> => {
  const file = path.join(dir, "opened.txt")
  for (let i = 0; i < 900; i++) {
    if (fs.existsSync(file) && fs.readFileSync(file, "utf8").trim() !== "") return fs.readFileSync(file, "utf8").trim().split("\n")[0]!
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`Claude Code opened no browser:\n${seen()}`)
}

/** Checks every 200 ms until `check` gives a value, for at most `ms`. */
const waitFor = async <A>(what: string, ms: number, check: () => A | undefined, seen: () => string): Promise<A> => {
  for (let waited = 0; waited < ms; waited += 200) {
    const found = check()
    if (found !== undefined) return found
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`no ${what} after ${ms / 1000}s:\n${seen()}`)
}

it("logs in with `claude mcp login` (the operator approving in the inbox), then delegates with the token", async () => {
  const url = `${daemon.url}/mcp/agents/mcp`
  const added = await run(`${BIN}/claude`, ["mcp", "add", "--transport", "http", "--scope", "user", "agent-bridge", url], { env, timeoutMs: 60_000 })
  expect(added.status, describeRun(added)).toBe(0)
  const before = await run(`${BIN}/claude`, ["mcp", "list"], { env, timeoutMs: 90_000 })
  expect(before.stdout, describeRun(before)).toMatch(/agent-bridge: .* - ! Needs authentication/)

  // `claude mcp login` needs a terminal; its exit status is kept in a file, the pane stays readable.
  const status = path.join(dir, "login.status")
  const { CI: _ci, ...base } = env
  terminal = startTerminal({
    dir, name: "claude-login", command: "/bin/bash",
    args: ["-c", `'${BIN}/claude' mcp login agent-bridge; echo $? > '${status}'; sleep 600`],
    env: { ...base, TERM: "xterm-256color" }, cwd: home
  })
  const screen = () => terminal!.screen()
  const authorizeUrl = await opened(screen)
  expect(authorizeUrl.startsWith(`${daemon.url}/oauth/authorize?`), authorizeUrl).toBe(true)
  const params = new URL(authorizeUrl).searchParams
  expect(params.get("code_challenge_method")).toBe("S256")
  expect(params.get("resource")).toBe(url)
  expect(params.get("redirect_uri")).toMatch(/^http:\/\/localhost:\d+\/callback$/)

  // The browser reaches the waiting page; the operator approves the request in the inbox.
  const browser = new Browser()
  const waiting = await browser.follow(authorizeUrl, daemon.url)
  expect(waiting.res.status).toBe(200)
  expect(await waiting.res.text()).toMatch(/asks to connect as a client of this bridge/)
  const operator = makeClient(daemon.url)
  expect((await operator.signIn(fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim())).status).toBe(303)
  const inbox = await operator.send("GET", "/inbox")
  expect(inbox.body).toMatch(/<strong>Claude Code[^<]*<\/strong> \(localhost:\d+\) asks to connect/)
  const id = /data-connection="([^"]+)"/.exec(inbox.body)?.[1]
  expect(id, inbox.body.slice(0, 2000)).toBeDefined()
  expect((await operator.send("POST", `/inbox/connect/${id}`, { csrf: operator.csrfOf(inbox.body), decision: "approve" })).status).toBe(303)

  // On to Claude Code's loopback callback, with the code and iss.
  const back = await browser.follow(waiting.url, daemon.url)
  expect(back.url).toMatch(/^http:\/\/localhost:\d+\/callback\?code=/)
  expect(new URL(back.url).searchParams.get("iss")).toBe(daemon.url)
  const callback = await fetch(back.url)
  expect(callback.status).toBe(200)
  const code = await waitFor("login exit", 60_000, () => (fs.existsSync(status) && fs.readFileSync(status, "utf8").trim() !== "" ? fs.readFileSync(status, "utf8").trim() : undefined), screen)
  expect(code, screen()).toBe("0")
  await terminal.kill()
  terminal = undefined

  const after = await run(`${BIN}/claude`, ["mcp", "list"], { env, timeoutMs: 90_000 })
  expect(after.stdout, describeRun(after)).toMatch(/agent-bridge: .* - ✔ Connected/)
  // Claude Code keeps the tokens in its own credentials file (no keychain here).
  const stored = JSON.parse(fs.readFileSync(path.join(home, ".claude", ".credentials.json"), "utf8")) as { mcpOAuth: Record<string, { serverUrl: string; accessToken: string; refreshToken?: string; clientId: string }> }
  const entry = Object.values(stored.mcpOAuth).find((e) => e.serverUrl === url)
  expect(entry?.accessToken.length).toBeGreaterThan(20)

  // `claude -p` delegates with that token through the scripted model.
  const r = await run(
    `${BIN}/claude`,
    ["-p", "Delegate the pull request summary to the Hermes agent and wait for it.", "--output-format", "json", "--allowedTools", TOOLS.join(",")],
    { env, cwd: home, timeoutMs: 150_000 }
  )
  expect(r.status, describeRun(r)).toBe(0)
  const reported = JSON.parse(r.stdout) as { result?: string; is_error?: boolean }
  expect(reported.is_error, describeRun(r)).toBe(false)
  const m = new RegExp(`${FINAL_PREFIX} run_id=(run_\\w+) status=(\\w+) output=(.*)$`).exec(reported.result ?? "")
  expect(m, `${reported.result}\nmodel saw: ${JSON.stringify(model.toolCalls)}`).not.toBeNull()
  expect(m![2]).toBe("completed")
  expect(model.toolCalls.map((c) => c.name).slice(0, 3)).toEqual(["agents_list", "agent_run", "agent_run_wait"])

  // The run is the OAuth client's own (read back with the token Claude Code stored), and the
  // client is listed by the CLI as connected with OAuth.
  const client = new Client({ name: "check", version: "0" })
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${entry!.accessToken}` } } }))
  const view = structuredOf(await client.callTool({ name: "agent_run_status", arguments: { run_id: m![1] } }))
  await client.close()
  expect(view).toMatchObject({ run_id: m![1], status: "completed" })
  const cli = path.resolve(import.meta.dirname, "..", "..", "bin", "agent-bridge.js")
  const listed = await run(process.execPath, [cli, "client", "list", "--config", path.join(dir, "agent-bridge.yaml")], { env: { ...env, PATH: process.env["PATH"] ?? "" }, timeoutMs: 120_000 })
  const row = listed.stdout.split("\n").find((l) => l.startsWith(`${view["client"]} `))
  expect(row, describeRun(listed)).toMatch(/oauth \(localhost:\d+\)$/)
  // Neither token is in the daemon's log.
  const log = daemon.output()
  expect(log).not.toContain(entry!.accessToken)
  if (entry!.refreshToken !== undefined) expect(log).not.toContain(entry!.refreshToken)
  expect(sink.hits).toEqual([])
}, 400_000)
