/**
 * `agent-bridge runs` as an operator runs it (the real CLI in a child process) against a real daemon
 * process and a simulated Hermes that outlives it: list with filters, show with events, usage errors
 * exit 2, an unknown run exits 1; a stop while the daemon runs is carried out at once and recorded as
 * the operator's; a stop while the daemon is down is recorded and carried out when it starts.
 */
import type { Client } from "@modelcontextprotocol/client"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectMcp } from "../support/daemon.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { cli, eventually, type Sim, startSim } from "./support.ts"

/** Per test: several CLI children, each 33 to 40 s at load average 36 (120 s ended passing tests there). */
const STEP = 480_000

interface Listed { runs: ReadonlyArray<{ runId: string; client: string; agent: string; face: string; status: string; tokens: number | null; operatorStop: string | null }> }
interface Shown { run: { run_id: string; status: string; client: string }; tokens: number | null; operator_stop: string | null; events?: ReadonlyArray<{ seq: number; type: string; data: Record<string, unknown> }> }

describe("agent-bridge runs (real CLI, real daemon)", () => {
  let dir = ""
  let configFile = ""
  let sim: Sim
  let daemon: DaemonProcess | undefined
  let port = 0
  let mcp: Client
  let key = ""

  const start = async () => {
    daemon = await spawnDaemon({ configFile, port })
    mcp = await connectMcp(daemon.url, key)
  }
  const runTool = async (input: string) => {
    const r = (await mcp.callTool({ name: "agent_run", arguments: { agent: "hermes", input } })) as unknown as { structuredContent: { run_id: string } }
    return r.structuredContent.run_id
  }
  const listJson = async (...args: ReadonlyArray<string>) => {
    const r = await cli(configFile, "runs", "list", "--json", ...args)
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout) as Listed
  }
  /** The run's status as its client sees it (MCP: much quicker than a CLI process per poll). */
  const statusOf = async (id: string) =>
    ((await mcp.callTool({ name: "agent_run_status", arguments: { run_id: id } })) as unknown as { structuredContent: { status: string } }).structuredContent.status
  const showJson = async (id: string) => {
    const r = await cli(configFile, "runs", "show", id, "--events", "--json")
    expect(r.code, r.stderr).toBe(0)
    return JSON.parse(r.stdout) as Shown
  }

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "ab-runs-cli-"))
    sim = await startSim()
    port = await freeLoopbackPort()
    configFile = path.join(dir, "agent-bridge.yaml")
    fs.writeFileSync(configFile, `bridge: {port: ${port}, data_dir: ${JSON.stringify(path.join(dir, "data"))}}\nhermes: {url: ${JSON.stringify(sim.url)}, key: ${sim.key}}\n`)
    const added = await cli(configFile, "client", "add", "laptop", "--json")
    expect(added.code, added.stderr).toBe(0)
    key = (JSON.parse(added.stdout) as { key: string }).key
    await start()
  }, STEP)

  afterAll(async () => {
    await mcp?.close().catch(() => undefined)
    await daemon?.kill("SIGKILL")
    await sim?.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  let quick = ""
  let slow = ""

  it("lists runs with their client, agent, status and tokens, and filters them", async () => {
    quick = await runTool("say hello")
    slow = await runTool("[sim:slow=300s] a long task")
    await eventually(async () => ((await statusOf(quick)) === "completed" ? true : undefined))
    const done = await listJson()
    const q = done.runs.find((r) => r.runId === quick)!
    expect(q.client).toBe("laptop")
    expect(q.agent).toBe("hermes")
    expect(q.face).toBe("mcp")
    expect(q.tokens).toBeGreaterThan(0)
    // Live runs first.
    expect(done.runs[0]?.runId).toBe(slow)
    expect((await listJson("--status", "completed")).runs.map((r) => r.runId)).toEqual([quick])
    expect((await listJson("--client", "someone-else")).runs).toEqual([])

    const table = await cli(configFile, "runs", "list")
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(/RUN\s+CLIENT\s+AGENT\s+FACE\s+STATUS\s+AGE\s+LAST EVENT\s+TOKENS/)
    expect(table.stdout).toMatch(new RegExp(`${slow}\\s+laptop\\s+hermes\\s+mcp\\s+running`))
  }, STEP)

  it("shows one run with its events and output, as clients see it (redacted)", async () => {
    const shown = await showJson(quick)
    expect(shown.run.status).toBe("completed")
    expect(shown.tokens).toBeGreaterThan(0)
    expect(shown.events?.[0]?.type).toBe("run.started")
    expect(shown.events?.at(-1)?.type).toBe("run.completed")
    const text = await cli(configFile, "runs", "show", quick)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain("Everything is in order.")
    // An ended run has no follower; a live one is followed by the only replica (one daemon).
    expect(text.stdout).not.toContain("follower:")
    expect((shown as unknown as { follower: unknown }).follower).toBeNull()
    const live = await cli(configFile, "runs", "show", slow)
    expect(live.code, live.stderr).toBe(0)
    expect(live.stdout).toContain(`follower: 127.0.0.1:${port} (the only replica)`)
    expect((JSON.parse((await cli(configFile, "runs", "show", slow, "--json")).stdout) as { follower: string }).follower).toBe(`127.0.0.1:${port} (the only replica)`)
  }, STEP)

  it("refuses bad usage with exit 2 and an unknown run with exit 1", async () => {
    for (const args of [["runs", "list", "--status", "bogus"], ["runs", "stop"], ["runs", "list", "--nope"]]) {
      const r = await cli(configFile, ...args)
      expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(2)
      expect(r.stderr).not.toMatch(/^\s+at /m)
    }
    for (const sub of ["show", "stop"]) {
      const r = await cli(configFile, "runs", sub, "run_does_not_exist")
      expect(r.code).toBe(1)
      expect(r.stderr).toContain("bridge.run_not_found")
    }
    const ended = await cli(configFile, "runs", "stop", quick)
    expect(ended.code).toBe(0)
    expect(ended.stdout).toContain("already ended")
  }, STEP)

  it("stops a run while the daemon runs: carried out at once, recorded as the operator's", async () => {
    const r = await cli(configFile, "runs", "stop", slow)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("stopped by the operator")
    await eventually(async () => ((await statusOf(slow)) === "cancelled" ? true : undefined))
    const shown = await showJson(slow)
    expect(shown.operator_stop).toBe("stopping")
    expect(shown.events?.find((e) => e.type === "run.stopping")?.data).toEqual({ by: "operator", via: "cli" })
  }, STEP)

  it("records a stop while the daemon is down and carries it out when it starts", async () => {
    const id = await runTool("[sim:slow=300s] another long task")
    await eventually(async () => ((await statusOf(id)) === "running" ? true : undefined))
    await mcp.close()
    await daemon!.kill("SIGTERM")

    const r = await cli(configFile, "runs", "stop", id)
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toContain("stop recorded")
    expect((await showJson(id)).operator_stop).toBe("pending")
    expect((await listJson()).runs.find((x) => x.runId === id)?.operatorStop).toBe("pending")

    await start()
    await eventually(async () => ((await statusOf(id)) === "cancelled" ? true : undefined), 60_000)
    const shown = await showJson(id)
    expect(shown.operator_stop).toBe("stopping")
    expect(shown.events?.find((e) => e.type === "run.stopping")?.data).toEqual({ by: "operator", via: "cli" })
  }, STEP)
})
