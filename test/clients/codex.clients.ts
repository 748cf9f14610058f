/**
 * Codex (installed from npm; the npm package ships the native binary) delegating through the
 * bridge: the `[mcp_servers.agent-bridge]` TOML that `agent-bridge client add` prints is pasted as
 * printed into a generated CODEX_HOME/config.toml whose model provider is our fake OpenAI
 * Responses API on loopback, scripted to call agents_list, agent_run and agent_run_wait until the
 * run is done. `codex exec` runs it non-interactively; the test checks what Codex reports against
 * what the daemon holds, and that nothing tried to leave loopback.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as TOML from "smol-toml"
import { afterAll, beforeAll, expect, it } from "vitest"
import { startAuthRelay } from "./support/authRelay.ts"
import { type Bridge, startBridge, structuredOf } from "./support/bridge.ts"
import type { FakeModelServer } from "./support/fakeAnthropic.ts"
import { DELEGATED_INPUT, FINAL_PREFIX } from "./support/fakeModel.ts"
import { startFakeOpenAI } from "./support/fakeOpenAI.ts"
import { type ProxySink, startProxySink } from "./support/proxySink.ts"
import { BIN, describeRun, makeHome, removeDir, requireInstalled, run, toolEnv, VERSIONS } from "./support/tools.ts"
import { codexBaseConfig } from "./support/codexConfig.ts"

/**
 * `codex exec` runs with approval policy "never", under which Codex refuses any MCP tool call that
 * would need approval ("MCP tool call requires approval, but approval policy is never") unless the
 * server entry pre-approves its tools, which the snippet `client add` prints does.
 */
const APPROVAL_LINE = `default_tools_approval_mode = "approve"`

let dir: string
let bridge: Bridge
let sink: ProxySink
let model: FakeModelServer
let env: Record<string, string>

beforeAll(async () => {
  requireInstalled(`${BIN}/codex`)
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-codex-"))
  sink = await startProxySink()
  model = await startFakeOpenAI()
  bridge = await startBridge(dir, "codex")
  const home = makeHome(dir, "home")
  env = toolEnv({ home, proxy: sink.url, extra: { CODEX_HOME: path.join(home, ".codex"), FAKE_OPENAI_API_KEY: "sk-fake-key-for-loopback", RUST_LOG: "warn" } })
})

afterAll(async () => {
  await bridge?.close()
  await model?.close()
  await sink?.close()
  removeDir(dir)
})


it(`is the pinned Codex ${VERSIONS.codex}`, async () => {
  const v = await run(`${BIN}/codex`, ["--version"], { env, timeoutMs: 60_000 })
  expect(v.stdout, describeRun(v)).toContain(VERSIONS.codex)
})

/**
 * Writes CODEX_HOME/config.toml (our part, then `snippet` as printed, plus the approval line when
 * the snippet lacks it), runs `codex exec` with the scripted model and returns what Codex reported.
 */
const delegate = async (home: string, snippet: string) => {
  const codexHome = path.join(home, ".codex")
  fs.mkdirSync(codexHome, { recursive: true })
  // Pasted exactly as printed: without its default_tools_approval_mode line, codex exec refuses the
  // tool calls ("MCP tool call requires approval, but approval policy is never").
  expect(snippet).toContain(APPROVAL_LINE)
  const config = `${codexBaseConfig(model.url)}\n${snippet}`
  fs.writeFileSync(path.join(codexHome, "config.toml"), config)
  const runEnv = { ...env, ...toolEnv({ home, proxy: sink.url }), CODEX_HOME: codexHome }
  const work = path.join(home, "work")
  fs.mkdirSync(work, { recursive: true })
  const last = path.join(home, "last-message.txt")
  const r = await run(
    `${BIN}/codex`,
    ["exec", "--strict-config", "--skip-git-repo-check", "--ephemeral", "-s", "read-only", "-C", work, "-o", last, "Delegate the pull request summary to the Hermes agent and wait for it."],
    { env: runEnv, cwd: work, timeoutMs: 150_000 }
  )
  expect(r.status, `${describeRun(r)}\nconfig.toml:\n${config}`).toBe(0)
  const reported = fs.readFileSync(last, "utf8")
  const m = new RegExp(`${FINAL_PREFIX} run_id=(run_\\w+) status=(\\w+) output=(.*)$`).exec(reported.trim())
  const offered = model.requests.map((q) => JSON.stringify((q.body?.tools ?? []).map((t: any) => (String(t.name).startsWith("mcp__") ? t : t.name ?? t.type))).slice(0, 3000))
  expect(m, `${reported}\nscript's tool calls: ${JSON.stringify(model.toolCalls)}\ntools offered per request:\n${offered.join("\n")}\n${describeRun(r)}`).not.toBeNull()
  const [, runId, status, output] = m!
  return { runId: runId!, status: status!, output: output! }
}

it("delegates a run through `codex exec` with the printed TOML pasted in, and reports what the daemon ran", async () => {
  const snippet = bridge.setup.codexToml
  expect(TOML.parse(snippet)["mcp_servers"]).toHaveProperty(["agent-bridge", "url"], bridge.mcpUrl)
  const { runId, status, output } = await delegate(env["HOME"]!, snippet)
  expect(status).toBe("completed")
  expect(model.toolCalls.map((c) => c.name).slice(0, 3)).toEqual(["agents_list", "agent_run", "agent_run_wait"])

  // What the daemon saw: the same run, the caller's own, finished with the output Codex relayed.
  const client = await bridge.inspect()
  const view = structuredOf(await client.callTool({ name: "agent_run_status", arguments: { run_id: runId } }))
  expect(view).toMatchObject({ run_id: runId, client: "codex", status: "completed", input_preview: DELEGATED_INPUT })
  expect(JSON.parse(output)).toBe(view["output"])
  expect(sink.hits).toEqual([])
})

/**
 * Which protocol era Codex speaks: a 2025-06-18 `initialize` (its 2026-07-28 client is still
 * behind a feature flag that is off). The same TOML with the URL pointed at a recording relay in
 * front of the daemon shows the wire.
 */
it("speaks the 2025-06-18 era to the daemon (initialize, then every request at that version)", async () => {
  const relay = await startAuthRelay(bridge.url, bridge.setup.key)
  try {
    const snippet = bridge.setup.codexToml.replace(bridge.mcpUrl, `${relay.url}/mcp/agents/mcp`)
    expect(snippet).not.toBe(bridge.setup.codexToml)
    const { status } = await delegate(makeHome(dir, "home-wire"), snippet)
    expect(status).toBe("completed")
    const posts = relay.seen.filter((s) => s.httpMethod === "POST")
    const wire = posts.map((s) => `${s.protocolHeader ?? "-"} ${s.body.slice(0, 120)}`).join("\n")
    expect(posts[0]?.body, wire).toContain('"method":"initialize"')
    expect(JSON.parse(posts[0]!.body).params.protocolVersion, wire).toBe("2025-06-18")
    expect(posts.slice(1).filter((s) => s.protocolHeader !== "2025-06-18"), wire).toEqual([])
    expect(sink.hits).toEqual([])
  } finally {
    await relay.close()
  }
})
