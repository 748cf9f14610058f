/**
 * Claude Code (installed from npm, run under Node 22) delegating through the bridge: the `claude mcp
 * add` line that `agent-bridge client add` prints is run as printed, then `claude -p` runs a
 * conversation whose model is our fake Anthropic API on loopback, scripted to call agents_list,
 * agent_run and agent_run_wait until the run is done. The test checks what Claude Code reports
 * against what the daemon holds, and that nothing tried to leave loopback. The last case runs the
 * interactive `claude` in tmux, the only mode whose MCP tasks are on.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, expect, it } from "vitest"
import { startAuthRelay } from "./support/authRelay.ts"
import { type Bridge, startBridge, structuredOf } from "./support/bridge.ts"
import { type FakeModelServer, startFakeAnthropic } from "./support/fakeAnthropic.ts"
import { DELEGATED_INPUT, FINAL_PREFIX, WAITING_PREFIX } from "./support/fakeModel.ts"
import { type ProxySink, startProxySink } from "./support/proxySink.ts"
import { startTerminal, TMUX } from "./support/tmux.ts"
import { BIN, describeRun, makeHome, removeDir, requireInstalled, run, toolEnv, VERSIONS } from "./support/tools.ts"

const PREFIX = "mcp__agent-bridge__"
const TOOLS = ["agents_list", "agent_run", "agent_run_wait"].map((t) => `${PREFIX}${t}`)

let dir: string
let bridge: Bridge
let sink: ProxySink
let model: FakeModelServer
let env: Record<string, string>

beforeAll(async () => {
  requireInstalled(`${BIN}/claude`, TMUX)
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-claude-"))
  sink = await startProxySink()
  model = await startFakeAnthropic(PREFIX)
  bridge = await startBridge(dir, "claude-code")
  env = claudeEnv(makeHome(dir, "home"))
})

/** Claude Code's environment for one isolated HOME: our fake model, its own traffic off. */
const claudeEnv = (home: string) =>
  toolEnv({
    home,
    proxy: sink.url,
    extra: {
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: "sk-ant-fake-key-for-loopback",
      // Telemetry, error reports, update checks and the rest of Claude Code's own traffic: off.
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_BUG_COMMAND: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      // The bridge's tools in the model's tool list itself, not deferred behind Claude Code's tool search.
      ENABLE_TOOL_SEARCH: "false",
      // The interactive mode also fetches a model catalog (downloads.claude.ai) and installs the
      // official plugin marketplace (github.com): both off, by their documented switches.
      CLAUDE_CODE_MODEL_CATALOG: "off",
      CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: "1"
    }
  })

afterAll(async () => {
  await bridge?.close()
  await model?.close()
  await sink?.close()
  removeDir(dir)
})

it(`is the pinned Claude Code ${VERSIONS.claudeCode}`, async () => {
  const v = await run(`${BIN}/claude`, ["--version"], { env, timeoutMs: 60_000 })
  expect(v.stdout, describeRun(v)).toContain(VERSIONS.claudeCode)
})

it("takes the printed `claude mcp add` line as it is", async () => {
  expect(bridge.setup.claudeCommand).toMatch(/^claude mcp add --transport http --scope user agent-bridge http:\/\/127\.0\.0\.1:\d+\/mcp\/agents\/mcp --header /)
  const added = await run("bash", ["-c", bridge.setup.claudeCommand], { env, timeoutMs: 60_000 })
  expect(added.status, describeRun(added)).toBe(0)
  const stored = JSON.parse(fs.readFileSync(path.join(env["HOME"]!, ".claude.json"), "utf8"))
  expect(stored.mcpServers["agent-bridge"]).toEqual({
    type: "http",
    url: bridge.mcpUrl,
    headers: { Authorization: `Bearer ${bridge.setup.key}` }
  })
})

/** `claude -p` with the scripted model; the run id, status and output Claude Code reports. */
const delegate = async (runEnv: Record<string, string>) => {
  const r = await run(
    `${BIN}/claude`,
    ["-p", "Delegate the pull request summary to the Hermes agent and wait for it.", "--output-format", "json", "--allowedTools", TOOLS.join(",")],
    { env: runEnv, cwd: runEnv["HOME"]!, timeoutMs: 150_000 }
  )
  expect(r.status, describeRun(r)).toBe(0)
  const reported = JSON.parse(r.stdout) as { result?: string; is_error?: boolean }
  expect(reported.is_error, describeRun(r)).toBe(false)
  const m = new RegExp(`${FINAL_PREFIX} run_id=(run_\\w+) status=(\\w+) output=(.*)$`).exec(reported.result ?? "")
  expect(m, `${reported.result}\nmodel saw: ${JSON.stringify(model.toolCalls)}`).not.toBeNull()
  const [, runId, status, output] = m!
  return { runId: runId!, status: status!, output: output! }
}

it("delegates a run through `claude -p` and reports what the daemon ran", async () => {
  const { runId, status, output } = await delegate(env)
  expect(status).toBe("completed")
  expect(model.toolCalls.map((c) => c.name).slice(0, 3)).toEqual(["agents_list", "agent_run", "agent_run_wait"])

  // What the daemon saw: the same run, the caller's own, finished with the output Claude Code relayed.
  const client = await bridge.inspect()
  const view = structuredOf(await client.callTool({ name: "agent_run_status", arguments: { run_id: runId } }))
  expect(view).toMatchObject({ run_id: runId, client: "claude-code", status: "completed", input_preview: DELEGATED_INPUT })
  expect(JSON.parse(output)).toBe(view["output"])
  expect(view["output"]).toContain(`I looked into "${DELEGATED_INPUT}"`)
  expect(sink.hits).toEqual([])
})

/**
 * Which protocol era Claude Code speaks: it probes `server/discover` at 2026-07-28 first and falls
 * back to a 2025-11-25 `initialize` when the server does not answer it. The same command line with
 * the URL pointed at a recording relay in front of the daemon (the key and everything else as
 * printed) shows the wire. Until the daemon serves 2026-07-28 this fails on the fallback.
 */
it("speaks the 2026-07-28 era to the daemon: no initialize, every request at that version", async () => {
  const relay = await startAuthRelay(bridge.url, bridge.setup.key)
  try {
    const wireEnv = claudeEnv(makeHome(dir, "home-wire"))
    const command = bridge.setup.claudeCommand.replace(bridge.mcpUrl, `${relay.url}/mcp/agents/mcp`)
    expect(command).not.toBe(bridge.setup.claudeCommand)
    const added = await run("bash", ["-c", command], { env: wireEnv, timeoutMs: 60_000 })
    expect(added.status, describeRun(added)).toBe(0)
    const { status } = await delegate(wireEnv)
    expect(status).toBe("completed")
    const posts = relay.seen.filter((s) => s.httpMethod === "POST")
    const wire = posts.map((s) => `${s.protocolHeader ?? "-"} ${s.body.slice(0, 120)}`).join("\n")
    expect(posts.length).toBeGreaterThan(0)
    expect(posts.filter((s) => s.body.includes('"method":"initialize"')), wire).toEqual([])
    expect(posts.filter((s) => s.protocolHeader !== "2026-07-28"), wire).toEqual([])
    expect(sink.hits).toEqual([])
  } finally {
    await relay.close()
  }
})

/**
 * The Tasks extension with Claude Code, as the pinned CLI does it in print mode. The bridge offers
 * it (`server/discover` advertises `io.modelcontextprotocol/tasks`, and `agent_run` answers a task to
 * a request that declares it), but `claude -p` 2.1.332 never declares it: its MCP-tasks gate is
 * a remote flag whose default is on only for the interactive entrypoint (`cli`), and `-p` runs as
 * `sdk-cli` (neither `CLAUDE_INTERNAL_FC_OVERRIDES` nor `MCP_SDK_GENERATION=v2` turns it on there).
 * No setting selects the gate in print mode: the bundle sets the entrypoint from
 * CLAUDE_CODE_ENTRYPOINT but rewrites `cli` to `sdk-cli` when `-p` is given, and the gate asks for
 * `cli` (CLAUDE_CODE_DISABLE_MCP_TASKS is the only switch, and it turns tasks off).
 * So in print mode `agent_run` answers the run view as before and Claude Code follows the run
 * with `agent_run_wait`; no `tasks/get` is sent. This records that, through the recording relay:
 * once a CLI declares the extension in print mode, this fails. The interactive mode does declare
 * it: the next case.
 */
it("with tasks offered, `claude -p` declares no tasks extension and delegates with agent_run_wait", async () => {
  const relay = await startAuthRelay(bridge.url, bridge.setup.key)
  try {
    const wireEnv = claudeEnv(makeHome(dir, "home-tasks"))
    const command = bridge.setup.claudeCommand.replace(bridge.mcpUrl, `${relay.url}/mcp/agents/mcp`)
    const added = await run("bash", ["-c", command], { env: wireEnv, timeoutMs: 60_000 })
    expect(added.status, describeRun(added)).toBe(0)
    // What Claude Code is offered: the extension, in server/discover.
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientInfo": { name: "probe", version: "0" },
      "io.modelcontextprotocol/clientCapabilities": {}
    }
    const discovered = await fetch(bridge.mcpUrl, {
      method: "POST",
      headers: {
        authorization: `Bearer ${bridge.setup.key}`, "content-type": "application/json", accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28", "mcp-method": "server/discover"
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: meta } })
    }).then((r) => r.json() as Promise<{ result: { capabilities: { extensions?: Record<string, unknown> } } }>)
    expect(discovered.result.capabilities.extensions?.["io.modelcontextprotocol/tasks"]).toEqual({})
    const { runId, status, output } = await delegate(wireEnv)
    expect(status).toBe("completed")
    const posts = relay.seen.filter((s) => s.httpMethod === "POST").map((s) => JSON.parse(s.body) as { method?: string; params?: any })
    const wire = posts.map((m) => `${m.method} ${JSON.stringify(m.params?._meta?.["io.modelcontextprotocol/clientCapabilities"])}`).join("\n")
    expect(posts.some((m) => m.method === "server/discover"), wire).toBe(true)
    const declared = posts.filter((m) => m.params?._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.["io.modelcontextprotocol/tasks"] !== undefined)
    expect(declared, wire).toEqual([])
    expect(posts.filter((m) => m.method?.startsWith("tasks/")), wire).toEqual([])
    const runCall = posts.find((m) => m.method === "tools/call" && m.params?.name === "agent_run")
    expect(runCall, wire).toBeDefined()
    // The run Claude Code reported is the daemon's, finished with the output it relayed.
    const view = structuredOf(await (await bridge.inspect()).callTool({ name: "agent_run_status", arguments: { run_id: runId } }))
    expect(JSON.parse(output)).toBe(view["output"])
    expect(sink.hits).toEqual([])
  } finally {
    await relay.close()
  }
})

/** The JSON-RPC answer in a relayed response body, plain JSON or an SSE stream of messages. */
const answerOf = (response: string): any => {
  if (response.trimStart().startsWith("{")) return JSON.parse(response)
  const data = response.split("\n").filter((l) => l.startsWith("data: ")).map((l) => JSON.parse(l.slice(6)))
  return data.find((d) => d.id !== undefined && (d.result !== undefined || d.error !== undefined))
}

/** Checks every second until `check` gives a value, for at most `ms`; what it saw in the failure. */
const waitFor = async <A>(what: string, ms: number, check: () => A | undefined, seen: () => string): Promise<A> => {
  for (let waited = 0; waited < ms; waited += 1000) {
    const found = check()
    if (found !== undefined) return found
    await new Promise((r) => setTimeout(r, 1000))
  }
  throw new Error(`no ${what} after ${ms / 1000}s:\n${seen()}`)
}

/**
 * The Tasks extension with Claude Code in its interactive mode (entrypoint `cli`), run in a
 * pseudo-terminal (tmux), where its tasks gate's default is on. Its ~/.claude.json is pre-seeded as
 * a user who finished onboarding, trusts the folder and approved the API key, so it opens straight
 * at the prompt; the prompt is typed once the bridge's tools are listed. What it does, through the
 * recording relay: it declares the extension, `agent_run` is answered a task, Claude Code moves the
 * call to the background (the model gets a note naming the task, not the run) and polls
 * `tasks/get` at the task's pollIntervalMs until `completed`, reading the result inlined there (no
 * other tasks/ method); then it opens a new turn with a `<task-notification>` carrying the result,
 * and the model's final answer echoes the run's output from it. No agent_run_wait is called.
 */
it("interactive Claude Code declares tasks, polls the run's task with tasks/get to completed and answers its output", async () => {
  const relay = await startAuthRelay(bridge.url, bridge.setup.key)
  const home = makeHome(dir, "home-interactive")
  const { CI: _ci, ...base } = claudeEnv(home)
  const ttyEnv: Record<string, string> = { ...base, TERM: "xterm-256color" }
  let terminal: ReturnType<typeof startTerminal> | undefined
  try {
    const command = bridge.setup.claudeCommand.replace(bridge.mcpUrl, `${relay.url}/mcp/agents/mcp`)
    const added = await run("bash", ["-c", command], { env: ttyEnv, timeoutMs: 60_000 })
    expect(added.status, describeRun(added)).toBe(0)
    const configFile = path.join(home, ".claude.json")
    const config = JSON.parse(fs.readFileSync(configFile, "utf8"))
    fs.writeFileSync(configFile, JSON.stringify({
      ...config,
      hasCompletedOnboarding: true,
      theme: "dark",
      customApiKeyResponses: { approved: [ttyEnv["ANTHROPIC_API_KEY"]!.slice(-20)], rejected: [] },
      projects: { [home]: { hasTrustDialogAccepted: true, allowedTools: [] } }
    }))
    const firstRequest = model.requests.length
    const firstCall = model.toolCalls.length
    terminal = startTerminal({ dir, name: "claude-interactive", command: `${BIN}/claude`, args: ["--allowedTools", TOOLS.join(",")], env: ttyEnv, cwd: home })
    const screen = () => terminal!.screen()
    const posts = () => relay.seen.filter((s) => s.httpMethod === "POST").map((s) => ({ message: JSON.parse(s.body) as { method?: string; params?: any }, answer: () => answerOf(s.response) }))
    await waitFor("prompt with the bridge's tools listed", 90_000, () => (screen().includes("shift+tab to cycle") && posts().some((p) => p.message.method === "tools/list" && JSON.stringify(p.answer() ?? {}).includes('"agent_run"')) ? true : undefined), screen)
    const prompt = "Delegate the pull request summary to the Hermes agent and wait for it."
    terminal.type(prompt)
    await waitFor("typed prompt", 30_000, () => (screen().includes(prompt) ? true : undefined), screen)
    terminal.enter()
    const final = await waitFor("final answer", 90_000, () => new RegExp(`${FINAL_PREFIX} run_id=(run_\\w+) status=(\\w+) output=`).exec(screen()) ?? undefined, () => `${screen()}\nmodel saw: ${JSON.stringify(model.toolCalls.slice(firstCall))}`)
    const [, runId, status] = final
    const shown = screen()
    const wire = posts().map((p) => `${p.message.method} ${JSON.stringify(p.message.params?._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions)}`).join("\n")

    // Claude Code declared the extension.
    const declaring = posts().filter((p) => p.message.params?._meta?.["io.modelcontextprotocol/clientCapabilities"]?.extensions?.["io.modelcontextprotocol/tasks"] !== undefined)
    expect(declaring.length, wire).toBeGreaterThan(0)
    // The bridge answered agent_run with a task: the run's id, working.
    const runCall = posts().find((p) => p.message.method === "tools/call" && p.message.params?.name === "agent_run")
    expect(runCall, wire).toBeDefined()
    expect(runCall!.message.params._meta["io.modelcontextprotocol/clientCapabilities"].extensions["io.modelcontextprotocol/tasks"]).toBeDefined()
    expect(runCall!.answer().result).toMatchObject({ resultType: "task", taskId: runId, status: "working" })
    // Claude Code polled it with tasks/get, and only that, until completed.
    const polls = posts().filter((p) => p.message.method?.startsWith("tasks/"))
    expect(polls.map((p) => p.message.method), wire).toEqual(polls.map(() => "tasks/get"))
    expect(polls.length, wire).toBeGreaterThan(0)
    expect(polls.map((p) => p.message.params.taskId)).toEqual(polls.map(() => runId))
    const statuses = polls.map((p) => p.answer().result.status as string)
    expect(statuses.at(-1), statuses.join(",")).toBe("completed")
    expect(statuses.slice(0, -1).every((s) => s === "working"), statuses.join(",")).toBe(true)

    // The model: agents_list and agent_run, a note that the call went to the background, then the
    // task's result in a notification, echoed in its final answer; no agent_run_wait.
    expect(model.toolCalls.slice(firstCall).map((c) => c.name)).toEqual(["agents_list", "agent_run"])
    const mainTurns = model.requests.slice(firstRequest).filter((r) => r.body?.tools?.some((t: any) => t?.name === `${PREFIX}agent_run`))
    const sent = JSON.stringify(mainTurns.map((r) => r.body.messages))
    expect(sent).toContain(`started server-side task ${runId}.`)
    expect(sent).toContain(`${WAITING_PREFIX} ${runId}`)
    expect(sent).toContain("<task-notification>")
    expect(status).toBe("completed")
    const view = structuredOf(await (await bridge.inspect()).callTool({ name: "agent_run_status", arguments: { run_id: runId } }))
    expect(view).toMatchObject({ run_id: runId, client: "claude-code", status: "completed", input_preview: DELEGATED_INPUT })
    // The final answer on Claude Code's screen carries the run's output (rendered as Markdown, so
    // the JSON escapes are gone; compared with whitespace folded, as the pane wraps).
    const fold = (t: string) => t.replace(/\s+/g, " ")
    expect(view["output"]).toContain(`I looked into "${DELEGATED_INPUT}"`)
    expect(fold(shown), shown).toContain(fold(String(view["output"])))
    expect(sink.hits).toEqual([])
  } finally {
    await terminal?.kill()
    await relay.close()
  }
})
