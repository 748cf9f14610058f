/**
 * Three bridge daemons on one PostgreSQL behind nginx, configured as docs/DEPLOY.md says (issue 25
 * item 1): the fleet of test/support/fleet.ts (real `agent-bridge serve` processes sharing their
 * followers through the cluster, on a server of this file's own, `usePostgres`; the Hermes simulator
 * in this process, which outlives the daemons; nginx from Debian's package with the documented
 * block, test/support/nginx.ts, whose access log tells which replica answered).
 *
 * - 2026-07-28: requests spread over every replica, and every run tool works through nginx; a run
 *   started through nginx is read, waited on and stopped through each replica directly (one replica
 *   follows it; a wait on another wakes by the change feed).
 * - 2025 era: `initialize` lands on one replica, later requests of the session on the others, all
 *   answer; the replica that opened the session is SIGKILLed and the session goes on through the
 *   others (each rebuilds it from the session store).
 * - The replicas share their followers with `cluster.secret` set (issue 37 item 5): a raw client on
 *   a replica's cluster port gets the hello and, for a msgpack Ping, a closed connection, never a
 *   Pong; the secret is in no replica's output.
 */
import type { Client } from "@modelcontextprotocol/client"
import { RpcSerialization } from "@effect/rpc"
import * as fs from "node:fs"
import * as net from "node:net"
import * as YAML from "yaml"
import { afterAll, describe, expect, it } from "vitest"
import { connectMcp, errorTextOf } from "../support/daemon.ts"
import { type Fleet, FLEET_CLUSTER_SECRET, startFleet } from "../support/fleet.ts"
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

describe("three replicas on one PostgreSQL behind nginx", () => {
  const pg = usePostgres()
  let fleet: Fleet | undefined
  let starting: Promise<Fleet> | undefined
  const clients: Array<Client> = []

  /** Starts the replicas and nginx once for the file (a daemon costs a few seconds to start); a failed start fails the rest at once. */
  const setUp = (ctx: { readonly skip: (note?: string) => void }) =>
    (starting ??= pg.database(ctx).then(async (storageUrl) => (fleet = await startFleet({ storageUrl, replicas: REPLICAS }))))
  const connect = async (baseUrl: string, era: "modern" | "legacy") => {
    const c = await connectMcp(baseUrl, fleet!.adminKey, "agents", era)
    clients.push(c)
    return c
  }

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined)
    await fleet?.stop()
  }, 60_000)

  it("2026-07-28 through nginx: calls spread over every replica; a run started there is read, waited on and stopped through each", async (ctx) => {
    const f = await setUp(ctx)
    const proxy = f.nginx()
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
    expect([...answered].sort()).toEqual(f.replicas.map((r) => r.address).sort())

    // Each replica directly: the same run, and a wait on each that the stop through the other ends.
    const [onA, onB] = [await connect(f.replicas[0]!.url, "modern"), await connect(f.replicas[1]!.url, "modern")]
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
    const f = await setUp(ctx)
    const proxy = f.nginx()
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
    const victim = f.replicas.find((r) => r.address === opener)!
    await victim.kill("SIGKILL")
    const mark = proxy.passed().length
    for (let i = 0; i < 4; i++) expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    expect((await call(client, "agent_run_status", { run_id: run["run_id"] }))["status"]).toBe("completed")
    const after = proxy.passed().slice(mark).filter((r) => r.sessionId === sessionId && r.method === "POST")
    expect(after.length).toBeGreaterThan(0)
    expect(after.every((r) => r.status === 200 && r.upstreams.at(-1) !== opener)).toBe(true)
  }, 240_000)
  it("the cluster ports answer nobody without the secret, and the secret is in no output", async (ctx) => {
    const f = await setUp(ctx)
    for (const r of f.replicas.filter((r) => r.isRunning())) {
      const clusterPort = (YAML.parse(fs.readFileSync(r.configFile, "utf8")) as { cluster: { port: number } }).cluster.port
      const received: Array<Buffer> = []
      const closed = await new Promise<boolean>((resolve) => {
        const socket = net.createConnection({ host: "127.0.0.1", port: clusterPort })
        socket.on("data", (c: Buffer) => received.push(c))
        socket.on("error", () => undefined)
        socket.once("connect", () => socket.write(RpcSerialization.msgPack.unsafeMake().encode({ _tag: "Ping" }) as Uint8Array))
        socket.once("close", () => resolve(true))
        setTimeout(() => {
          socket.destroy()
          resolve(false)
        }, 30_000)
      })
      expect(closed, `${r.name}'s cluster port kept the connection`).toBe(true)
      // The hello only (8-byte magic and a 32-byte challenge), nothing decoded.
      expect(Buffer.concat(received).length).toBe(40)
      expect(r.output()).not.toContain(FLEET_CLUSTER_SECRET)
    }
  }, 120_000)
})
