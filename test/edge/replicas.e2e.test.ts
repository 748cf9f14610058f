/**
 * Three bridge daemons on one PostgreSQL behind nginx, configured as docs/DEPLOY.md says (issue 25
 * item 1): real processes (`agent-bridge serve`), a server of this file's own (`usePostgres`), the
 * Hermes simulator in this process (it outlives the daemons), nginx from Debian's package with the
 * documented block (test/support/nginx.ts; its access log tells which replica answered).
 *
 * - 2026-07-28: requests spread over every replica, and every run tool works through nginx; a run
 *   started through nginx is read, waited on and stopped through each replica directly (the follower
 *   stays on the replica that started it; a wait on another wakes by the change feed).
 * - 2025 era: `initialize` lands on one replica, later requests of the session on the others, all
 *   answer; the replica that opened the session is SIGKILLed and the session goes on through the
 *   others (each rebuilds it from the session store).
 */
import type { Client } from "@modelcontextprotocol/client"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import * as YAML from "yaml"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { connectMcp, errorTextOf, tempDir } from "../support/daemon.ts"
import { type DaemonProcess, spawnDaemon } from "../support/daemonProcess.ts"
import { freeLoopbackPort } from "../support/freePort.ts"
import { type Nginx, startNginx } from "../support/nginx.ts"
import { usePostgres } from "../support/postgres.ts"

type Json = Record<string, any>
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent
const call = async (c: Client, name: string, args: Json): Promise<Json> => {
  const result = await c.callTool({ name, arguments: args })
  expect(errorTextOf(result), `${name} answered an error`).toBe("")
  return structured(result)
}
/** Replicas behind nginx (the in-process pair of test/edge/sessionReplicas.test.ts covers two). */
const REPLICAS = 3
/** The same admin key on every replica (docs/DEPLOY.md: `bridge.admin_key`). */
const ADMIN_KEY = "hal0bk_replicas0test0admin0key0000000000"

describe("three replicas on one PostgreSQL behind nginx", () => {
  const pg = usePostgres()
  let sim: SimulatorAsync | undefined
  let nginx: Nginx | undefined
  const replicas: Array<DaemonProcess> = []
  const clients: Array<Client> = []

  /** Starts the replicas and nginx once for the file (a daemon costs a few seconds to start). */
  const setUp = async (ctx: { readonly skip: (note?: string) => void }) => {
    if (nginx !== undefined) return nginx
    const url = await pg.database(ctx)
    sim = await startSimulatorAsync({ generation: "new" })
    const dir = tempDir()
    const ports: Array<number> = []
    for (let i = 0; i < REPLICAS; i++) ports.push(await freeLoopbackPort())
    const started = await Promise.all(ports.map((port, i) => {
      const configFile = path.join(dir, `replica-${i}.yaml`)
      fs.writeFileSync(configFile, YAML.stringify({
        bridge: { port, data_dir: path.join(dir, `data-${i}`), admin_key: ADMIN_KEY, trusted_proxies: ["127.0.0.1"] },
        hermes: { url: sim!.url, key: sim!.profiles[0]!.key },
        storage: { url }
      }))
      return spawnDaemon({ configFile, port, readyTimeoutMs: 120_000 })
    }))
    replicas.push(...started)
    nginx = await startNginx(ports.map((p) => `127.0.0.1:${p}`))
    return nginx
  }
  const connect = async (baseUrl: string, era: "modern" | "legacy") => {
    const c = await connectMcp(baseUrl, ADMIN_KEY, "agents", era)
    clients.push(c)
    return c
  }
  const addressOf = (d: DaemonProcess) => d.url.replace("http://", "")

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined)
    for (const d of replicas) await d.kill("SIGKILL").catch(() => undefined)
    await nginx?.stop()
    await sim?.close()
  }, 60_000)

  it("2026-07-28 through nginx: calls spread over every replica; a run started there is read, waited on and stopped through each", async (ctx) => {
    const proxy = await setUp(ctx)
    const client = await connect(proxy.url, "modern")
    const before = proxy.passed().length
    const started = await call(client, "agent_run", { agent: "hermes", input: "[sim:deltas=40,slow=30s] count slowly", idempotency_key: "replicas-modern-1" })
    const runId = started["run_id"] as string
    for (let i = 0; i < 6; i++) expect((await call(client, "agent_run_status", { run_id: runId }))["run_id"]).toBe(runId)
    const events = await call(client, "agent_run_events", { run_id: runId, limit: 50 })
    expect(events["events"][0]["type"]).toBe("run.started")
    // The same idempotency key through the proxy (either replica) is the same run.
    expect((await call(client, "agent_run", { agent: "hermes", input: "[sim:deltas=40,slow=30s] count slowly", idempotency_key: "replicas-modern-1" }))["run_id"]).toBe(runId)
    const answered = new Set(proxy.passed().slice(before).filter((r) => r.method === "POST").flatMap((r) => r.upstreams))
    expect([...answered].sort()).toEqual(replicas.map(addressOf).sort())

    // Each replica directly: the same run, and a wait on each that the stop through the other ends.
    const [onA, onB] = [await connect(replicas[0]!.url, "modern"), await connect(replicas[1]!.url, "modern")]
    const statusA = await call(onA, "agent_run_status", { run_id: runId })
    const statusB = await call(onB, "agent_run_status", { run_id: runId })
    expect(statusA["status"]).toBe("running")
    expect(statusB["status"]).toBe("running")
    const waits = [call(onA, "agent_run_wait", { run_id: runId, timeout_s: 60 }), call(onB, "agent_run_wait", { run_id: runId, timeout_s: 60 })]
    await new Promise((r) => setTimeout(r, 500))
    const t0 = Date.now()
    const stopped = await call(onB, "agent_run_stop", { run_id: runId })
    expect(["stopping", "stopped"]).toContain(stopped["status"])
    const [waitedA, waitedB] = (await Promise.all(waits)) as [Json, Json]
    expect(waitedA["timed_out"]).toBe(false)
    expect(waitedB["timed_out"]).toBe(false)
    expect(waitedA["status"]).toBe("cancelled")
    expect(waitedB["status"]).toBe("cancelled")
    const settledMs = Date.now() - t0
    process.stderr.write(`[replicas] stop through B to both waits answered: ${settledMs} ms\n`)
    expect(settledMs).toBeLessThan(20_000)
  }, 240_000)

  it("2025 era through nginx: one session served by several replicas, and by the survivors after the one that opened it is SIGKILLed", async (ctx) => {
    const proxy = await setUp(ctx)
    const before = proxy.passed().length
    const client = await connect(proxy.url, "legacy")
    for (let i = 0; i < 6; i++) expect((await client.listTools()).tools.some((t) => t.name === "agent_run")).toBe(true)
    const run = await call(client, "agent_run", { agent: "hermes", input: "[sim:deltas=5] hello", idempotency_key: "replicas-legacy-1", wait_s: 30 })
    expect(run["status"]).toBe("completed")
    const passed = proxy.passed().slice(before)
    const sessionId = passed.find((r) => r.sessionId !== undefined)?.sessionId
    expect(sessionId).toBeDefined()
    const ofSession = passed.filter((r) => r.sessionId === sessionId && r.method === "POST")
    expect(ofSession.every((r) => r.status === 200 || r.status === 202)).toBe(true)
    expect(new Set(ofSession.flatMap((r) => r.upstreams)).size).toBe(REPLICAS)

    // The replica that answered initialize (the first POST without a session id) dies the hard way.
    const opener = passed.find((r) => r.method === "POST" && r.sessionId === undefined)!.upstreams.at(-1)!
    const victim = replicas.find((d) => addressOf(d) === opener)!
    await victim.kill("SIGKILL")
    const mark = proxy.passed().length
    for (let i = 0; i < 4; i++) expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    expect((await call(client, "agent_run_status", { run_id: run["run_id"] }))["status"]).toBe("completed")
    const after = proxy.passed().slice(mark).filter((r) => r.sessionId === sessionId && r.method === "POST")
    expect(after.length).toBeGreaterThan(0)
    expect(after.every((r) => r.status === 200 && r.upstreams.at(-1) !== opener)).toBe(true)
  }, 240_000)
})
