/**
 * `GET /metrics` of a whole daemon (built-in Hermes simulator): refused without the admin key or the
 * metrics token, Prometheus text with them; the counters move with a run (started, finished by
 * status and client, MCP requests by tool and code, Hermes latency by profile, redactions), and the
 * database's facts (live runs, ledger size, pending inbox rows) and event-loop lag are there.
 */
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { connectMcp, startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { eventually } from "./support.ts"

const METRICS_TOKEN = "metrics-token-0123456789abcdef"

/** Parses the text format into samples: name, labels, value. */
const parse = (text: string) =>
  text.split("\n").filter((l) => l.length > 0 && !l.startsWith("#")).map((line) => {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
    if (m === null) throw new Error(`not a sample line: ${line}`)
    const labels: Record<string, string> = {}
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]!] = l[2]!
    return { name: m[1]!, labels, value: Number(m[3]) }
  })

type Samples = ReturnType<typeof parse>
const value = (samples: Samples, name: string, labels: Record<string, string> = {}): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0)

describe("GET /metrics", () => {
  let daemon: TestDaemon
  let mcp: Client
  const client = `metrics-${process.pid}`

  /** `null`: no Authorization header at all. */
  const scrape = async (token: string | null = daemon.adminKey) => {
    const res = await fetch(`${daemon.url}/metrics`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } })
    return { status: res.status, type: res.headers.get("content-type") ?? "", text: await res.text() }
  }
  let lastText = ""
  const samples = async () => {
    const r = await scrape()
    expect(r.status).toBe(200)
    lastText = r.text
    return parse(r.text)
  }
  const call = (name: string, args: Record<string, unknown>) => mcp.callTool({ name, arguments: args }) as Promise<{ structuredContent?: { run_id: string; status: string }; isError?: boolean }>

  beforeAll(async () => {
    daemon = await startDaemon(testConfig({ hermes: { url: "sim" }, bridge: { metrics_token: METRICS_TOKEN } }))
    mcp = await connectMcp(daemon.url, await daemon.addClient(client))
  }, 60_000)
  afterAll(async () => {
    await mcp?.close()
    await daemon?.close()
  })

  it("needs the admin key or bridge.metrics_token", async () => {
    expect((await scrape(null)).status).toBe(403)
    expect((await scrape("hal0bk_not-a-key-at-all")).status).toBe(403)
    const other = await daemon.addClient(`${client}-b`)
    expect((await scrape(other)).status).toBe(403)
    const withToken = await scrape(METRICS_TOKEN)
    expect(withToken.status).toBe(200)
    expect(withToken.type).toMatch(/^text\/plain; version=0\.0\.4/)
    expect((await scrape()).status).toBe(200)
    const post = await fetch(`${daemon.url}/metrics`, { method: "POST", headers: { authorization: `Bearer ${daemon.adminKey}` } })
    expect(post.status).toBe(405)
  })

  it("labels every sample with the replica: host:port of its listener when bridge.replica_id is unset", async () => {
    const all = await samples()
    expect(all.length).toBeGreaterThan(10)
    const replica = daemon.url.replace("http://", "")
    expect(replica).not.toMatch(/:0$/)
    expect(all.filter((s) => s.labels["replica"] !== replica)).toEqual([])
  })

  it("moves its counters with a run", async () => {
    const before = await samples()
    const started = await call("agent_run", { agent: "hermes", input: "[sim:secrets] check the deploy" })
    const runId = started.structuredContent!.run_id
    await eventually(async () => ((await call("agent_run_status", { run_id: runId })).structuredContent?.status === "completed" ? true : undefined))
    const unknown = await call("agent_run_status", { run_id: "run_nope" })
    expect(unknown.isError).toBe(true)
    const after = await samples()

    const delta = (name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels)
    expect(delta("agent_bridge_runs_started_total", { client })).toBe(1)
    expect(delta("agent_bridge_runs_finished_total", { client, status: "completed" })).toBe(1)
    expect(delta("agent_bridge_runs_finished_total", { client, status: "completed", face: "mcp" })).toBe(1)
    expect(delta("agent_bridge_runs_started_total", { client, face: "a2a" })).toBe(0)
    expect(delta("agent_bridge_mcp_requests_total", { tool: "agent_run", code: "ok" })).toBe(1)
    expect(delta("agent_bridge_mcp_requests_total", { tool: "agent_run_status", code: "bridge.run_not_found" })).toBe(1)
    expect(delta("agent_bridge_hermes_request_seconds_count", { profile: "default" })).toBeGreaterThan(0)
    // The run's output holds fake secrets: the status views masked them.
    expect(delta("agent_bridge_redactions_applied_total")).toBeGreaterThan(0)
    expect(value(after, "agent_bridge_ledger_runs")).toBeGreaterThanOrEqual(1)
    expect(value(after, "agent_bridge_ledger_events")).toBeGreaterThan(value(before, "agent_bridge_ledger_events"))
    expect(value(after, "agent_bridge_database_bytes")).toBeGreaterThan(0)
    expect(value(after, "agent_bridge_runs_live", { client })).toBe(0)
    for (const name of ["agent_bridge_waits_open", "agent_bridge_inbox_pending", "nodejs_eventloop_lag_seconds", "agent_bridge_hermes_reconnects_total", "agent_bridge_hermes_polling_fallbacks_total"]) {
      // Declared even before anything counted (a labelled counter has no sample until then).
      expect(lastText, name).toMatch(new RegExp(`^# TYPE ${name} `, "m"))
    }
  }, 60_000)

  it("counts live runs and open waits while a run goes on", async () => {
    const started = await call("agent_run", { agent: "hermes", input: "[sim:slow=20s] a slower task" })
    const runId = started.structuredContent!.run_id
    const waiting = call("agent_run_wait", { run_id: runId, timeout_s: 30 })
    const during = await eventually(async () => {
      const s = await samples()
      return value(s, "agent_bridge_waits_open") >= 1 ? s : undefined
    })
    expect(value(during, "agent_bridge_runs_live", { client })).toBe(1)
    await call("agent_run_stop", { run_id: runId })
    await waiting
    const after = await samples()
    expect(value(after, "agent_bridge_runs_live", { client })).toBe(0)
    expect(value(after, "agent_bridge_waits_open")).toBe(0)
    expect(value(after, "agent_bridge_runs_finished_total", { client, status: "cancelled" })).toBe(1)
  }, 60_000)
})
