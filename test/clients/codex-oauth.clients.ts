/**
 * Codex over OAuth (issue 40): a daemon with `oauth.issuer`, Codex given only the MCP URL (no key).
 * `codex mcp login` discovers the bridge's authorization server from its metadata, registers
 * itself (Dynamic Client Registration: the daemon offers no Client ID Metadata Documents here, since
 * Codex's document lives on chatgpt.com and nothing may leave the machine), and "opens a browser"
 * (its BROWSER is a script that records the URL); the test is that browser: it follows the URL to
 * the bridge's waiting page, where the operator approves with the admin key, and on to Codex's
 * loopback callback. Then `codex exec` delegates with the token Codex stored, and the run is the
 * new OAuth client's own.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as YAML from "yaml"
import { afterAll, beforeAll, expect, it } from "vitest"
import { Browser } from "../oauth/support.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import type { FakeModelServer } from "./support/fakeAnthropic.ts"
import { FINAL_PREFIX } from "./support/fakeModel.ts"
import { startFakeOpenAI } from "./support/fakeOpenAI.ts"
import { type ProxySink, startProxySink } from "./support/proxySink.ts"
import { BIN, describeRun, makeHome, removeDir, requireInstalled, run, toolEnv } from "./support/tools.ts"
import { codexBaseConfig } from "./support/codexConfig.ts"

let dir: string
let daemon: DaemonProcess
let sink: ProxySink
let model: FakeModelServer
let home: string
let env: Record<string, string>

beforeAll(async () => {
  requireInstalled(`${BIN}/codex`)
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-codex-oauth-"))
  sink = await startProxySink()
  model = await startFakeOpenAI()
  const port = await freeLoopbackPort()
  const configFile = path.join(dir, "agent-bridge.yaml")
  fs.writeFileSync(configFile, YAML.stringify({
    bridge: { port, data_dir: path.join(dir, "data") },
    oauth: { issuer: `http://127.0.0.1:${port}`, client_metadata_documents: false }
  }))
  daemon = await spawnDaemon({ configFile, port, readyTimeoutMs: 120_000 })
  home = makeHome(dir, "home")
  const browser = path.join(dir, "browser.sh")
  fs.writeFileSync(browser, `#!/bin/sh\necho "$1" >> '${path.join(dir, "opened.txt")}'\n`, { mode: 0o755 })
  env = toolEnv({ home, proxy: sink.url, extra: { CODEX_HOME: path.join(home, ".codex"), FAKE_OPENAI_API_KEY: "sk-fake-key-for-loopback", RUST_LOG: "warn", BROWSER: browser } })
  fs.mkdirSync(path.join(home, ".codex"), { recursive: true })
  fs.writeFileSync(path.join(home, ".codex", "config.toml"), codexBaseConfig(model.url, [`mcp_oauth_credentials_store = "file"`]) + [
    `[mcp_servers.agent-bridge]`,
    `url = "${daemon.url}/mcp/agents/mcp"`,
    `tool_timeout_sec = 660`,
    `default_tools_approval_mode = "approve"`,
    ``
  ].join("\n"))
}, 180_000)

afterAll(async () => {
  await daemon?.kill("SIGTERM")
  await model?.close()
  await sink?.close()
  removeDir(dir)
})

const opened = async (): Promise<string> => {
  const file = path.join(dir, "opened.txt")
  for (let i = 0; i < 600; i++) {
    if (fs.existsSync(file) && fs.readFileSync(file, "utf8").trim() !== "") return fs.readFileSync(file, "utf8").trim().split("\n")[0]!
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error("Codex opened no browser")
}

it("logs in with `codex mcp login` (the operator approving on the bridge's page), then delegates with the token", async () => {
  const metadata = await (await fetch(`${daemon.url}/.well-known/oauth-authorization-server`)).json()
  expect(metadata.client_id_metadata_document_supported).toBeUndefined()
  const login = run(`${BIN}/codex`, ["mcp", "login", "agent-bridge"], { env, timeoutMs: 150_000 })
  const url = await opened()
  expect(url.startsWith(`${daemon.url}/oauth/authorize?`), url).toBe(true)
  const params = new URL(url).searchParams
  expect(params.get("code_challenge_method")).toBe("S256")
  expect(params.get("resource")).toBe(`${daemon.url}/mcp/agents/mcp`)

  const browser = new Browser()
  const waiting = await browser.follow(url, daemon.url)
  expect(waiting.res.status).toBe(200)
  expect(await waiting.res.text()).toMatch(/asks to connect as a client of this bridge/)
  const adminKey = fs.readFileSync(path.join(dir, "data", "admin.key"), "utf8").trim()
  await browser.go(waiting.url, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ key: adminKey, decision: "approve" }).toString() })
  const back = await browser.follow(waiting.url, daemon.url)
  expect(back.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback\?code=/)
  expect(new URL(back.url).searchParams.get("iss")).toBe(daemon.url)
  const callback = await fetch(back.url)
  expect(callback.status).toBe(200)
  const done = await login
  expect(done.status, describeRun(done)).toBe(0)
  expect(done.stdout + done.stderr).toMatch(/Successfully logged in/)

  const work = path.join(home, "work")
  fs.mkdirSync(work, { recursive: true })
  const last = path.join(home, "last-message.txt")
  const r = await run(
    `${BIN}/codex`,
    ["exec", "--strict-config", "--skip-git-repo-check", "--ephemeral", "-s", "read-only", "-C", work, "-o", last, "Delegate the pull request summary to the Hermes agent and wait for it."],
    { env, cwd: work, timeoutMs: 150_000 }
  )
  expect(r.status, describeRun(r)).toBe(0)
  const reported = fs.readFileSync(last, "utf8").trim()
  const m = new RegExp(`${FINAL_PREFIX} run_id=(run_\\w+) status=(\\w+) output=(.*)$`).exec(reported)
  expect(m, `${reported}\n${describeRun(r)}`).not.toBeNull()
  expect(m![2]).toBe("completed")
  expect(model.toolCalls.map((c) => c.name).slice(0, 3)).toEqual(["agents_list", "agent_run", "agent_run_wait"])

  // The run is the OAuth client's own: listed by the CLI as connected with OAuth.
  const cli = path.resolve(import.meta.dirname, "..", "..", "bin", "agent-bridge.js")
  const listed = await run(process.execPath, [cli, "client", "list", "--config", path.join(dir, "agent-bridge.yaml")], { env: { ...env, PATH: process.env["PATH"] ?? "" }, timeoutMs: 120_000 })
  expect(listed.stdout, describeRun(listed)).toMatch(/oauth \(127\.0\.0\.1:\d+\)/)
  expect(sink.hits).toEqual([])
}, 300_000)
