/**
 * PostgreSQL restarted under a daemon whose runs stream (issue 24 item 5): a whole daemon over
 * real HTTP on a server of this file's own (`usePostgres`), runs streaming from the simulator. While
 * the server is stopped (`pg_ctl stop -m fast`, an operator's restart) a run tool answers
 * `bridge.store_unavailable` naming the server as host:port/db (never the URL) and `/healthz` says
 * `storage: degraded`; started again on the same port and data folder, the daemon reconnects by
 * itself (no restart of it), every run goes on to completion, and none loses an event: seqs run
 * from 1 without a gap or a repeat and the stored output is the text its events carried.
 */
import type { Client } from "@modelcontextprotocol/client"
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { connectMcp, errorTextOf, startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { usePostgres } from "../support/postgres.ts"
import { sleep } from "../support/poll.ts"

type Json = Record<string, any>
const structured = (r: object): Json => (r as { structuredContent: Json }).structuredContent
const call = (c: Client, name: string, args: Json) => c.callTool({ name, arguments: args })

/** `/healthz`'s whole report needs the admin key (issue 37 item 11). */
const operator = (d: TestDaemon) => ({ headers: { authorization: `Bearer ${d.adminKey}` } })

const RUNS = 4
const TERMINAL = ["completed", "failed", "cancelled", "interrupted"]

describe("PostgreSQL restarted while runs stream", () => {
  const pg = usePostgres()
  let sim: SimulatorAsync | undefined
  let daemon: TestDaemon | undefined
  let client: Client | undefined
  afterAll(async () => {
    await client?.close().catch(() => undefined)
    await daemon?.close()
    await sim?.close()
  }, 120_000)

  it("calls answer store_unavailable and /healthz degraded meanwhile; afterwards every run completes with no event lost", async (ctx) => {
    const server = pg.server(ctx)
    const url = await pg.database(ctx)
    sim = await startSimulatorAsync({})
    daemon = await startDaemon(testConfig({ hermes: { url: sim.url, key: sim.profile("default").key }, storage: { url } }, tempDir()))
    client = await connectMcp(daemon.url, await daemon.addClient("alice"))
    const ids: Array<string> = []
    for (let i = 0; i < RUNS; i++) {
      const started = await call(client, "agent_run", { agent: "hermes", input: `[sim:deltas=60,slow=12s] task ${i}` })
      expect(errorTextOf(started)).toBe("")
      ids.push(structured(started)["run_id"])
    }
    await sleep(1_500)

    await server.stopServer()
    try {
      const during = await call(client, "agent_run_status", { run_id: ids[0] })
      const text = errorTextOf(during)
      expect(text).toContain("bridge.store_unavailable")
      expect(text).toContain(`127.0.0.1:${server.port}/`)
      expect(text).not.toContain("postgres://")
      const health = (await (await fetch(`${daemon.url}/healthz`, operator(daemon))).json()) as Json
      expect(health["storage"]).toBe("degraded")
      expect(health["ready"]).toBe(false)
      expect(JSON.stringify(health)).toContain(`127.0.0.1:${server.port}/`)
      // Without the operator's key: a status only, the database's place not named (issue 37 item 11).
      expect((await (await fetch(`${daemon.url}/healthz`)).json()) as Json).toEqual({ status: "degraded", ready: false })
      // The streams go on meanwhile: Hermes's deltas wait in the followers for the database.
      await sleep(2_000)
    } finally {
      await server.startServer()
    }

    // Back by itself: the health probe answers again, then every run reaches its end.
    let healthy: Json = {}
    for (let i = 0; i < 120 && healthy["storage"] !== "ok"; i++) {
      healthy = (await (await fetch(`${daemon.url}/healthz`, operator(daemon))).json()) as Json
      if (healthy["storage"] !== "ok") await sleep(250)
    }
    expect(healthy["storage"]).toBe("ok")
    for (const id of ids) {
      const waited = structured(await call(client, "agent_run_wait", { run_id: id, timeout_s: 120 }))
      expect(TERMINAL).toContain(waited["status"])
      expect(waited["status"]).toBe("completed")
      const status = structured(await call(client, "agent_run_status", { run_id: id }))
      const events: Array<Json> = []
      for (let since = 0, round = 0; round < 50; round++) {
        const page = structured(await call(client, "agent_run_events", { run_id: id, since_seq: since, limit: 500 }))
        events.push(...page["events"])
        if (page["events"].length === 0) break
        since = page["events"].at(-1)["seq"]
      }
      expect(events.map((e) => e["seq"])).toEqual(events.map((_, i) => i + 1))
      const told = events.filter((e) => e["type"] === "message.text").map((e) => e["data"]["text"]).join("")
      expect(told.length).toBeGreaterThan(0)
      expect(status["output"]).toBe(told)
    }
  }, 300_000)
})
