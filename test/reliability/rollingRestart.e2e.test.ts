/**
 * A rolling restart (issue 25 item 5): three replicas on one PostgreSQL (a server of this file's
 * own) behind nginx with docs/DEPLOY.md's block, 20 clients (ResilientMcp, 2025-era sessions)
 * going through nginx with live runs: each one waits on a clarification (live through every
 * restart) and two stream for 25-45 s. The replicas get SIGTERM one at a time; each must exit 0,
 * start again and be ready before the next.
 *
 * What the clients may see meanwhile, and retry by themselves as any MCP client does: a lost call
 * (the connection refused or closed, nginx's 502 for a request a stopping replica received) and
 * `bridge.unavailable` (the replica is draining). Any other failed call is a problem. Afterwards
 * every run ends as it would have (`completed`), Hermes ran each input once, the events run from
 * seq 1 without a gap or a repeat, the output is exactly Hermes's text and the events' text, and
 * every live run had a follower again after each restart.
 */
import { afterAll, describe, expect, it } from "vitest"
import { startSimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { type Fleet, startFleet } from "../support/fleet.ts"
import { usePostgres } from "../support/postgres.ts"
import { hermesRunsByInput, verifyRun } from "./support/crashChecks.ts"
import { churn, finish, makeWorkload, type RunKind, startAll } from "./support/crashWorkload.ts"
import { admitFleetClients, awaitFollowers, describeUnfollowed, doublyFollowedRuns, openDb, printFigures, spread } from "./support/fleetChaos.ts"
import { ResilientMcp } from "./support/mcpClient.ts"

const REPLICAS = 3
const CLIENTS = 20
const KINDS: ReadonlyArray<RunKind> = ["clarify", "stream", "stream"]
/** Long enough to span the three restarts on a loaded machine, short enough for the 2-minute goal. */
const STREAMS = { minS: 25, spreadS: 20 }
/** A ceiling for a loaded machine (the issue's goal is 2 minutes on a quiet one). */
const BUDGET_MS = 600_000
/** After a restart, every live run has a follower again within this (lock expiry is not waited on SIGTERM). */
const FOLLOWERS_WITHIN_MS = 60_000

const inFlight = <A>(p: Promise<A>): Promise<A> => {
  p.catch(() => undefined)
  return p
}

describe("rolling restart of three replicas behind nginx", () => {
  const pg = usePostgres()
  let fleet: Fleet | undefined
  afterAll(async () => {
    await fleet?.stop()
  }, 60_000)

  it("20 clients with live runs see only retryable failures; every run completes with every event once", async (ctx) => {
    const storageUrl = await pg.database(ctx)
    const testStart = Date.now()
    const deadline = testStart + BUDGET_MS - 30_000
    const log = (m: string) => console.log(`[${((Date.now() - testStart) / 1000).toFixed(1)}s] ${m}`)
    const sim = await startSimulatorAsync({
      generation: "new", maxConcurrentRuns: 1000, clarifyTimeoutMs: 900_000,
      // Hermes's frames kept for the final comparison (by default an unread buffer expires).
      eventBufferTtlMs: 3_600_000
    })
    fleet = await startFleet({ storageUrl, replicas: REPLICAS, sim, readyTimeoutMs: 300_000, config: { bridge: { max_concurrent_runs_per_client: KINDS.length } } })
    const f = fleet
    log("fleet ready")
    const names = Array.from({ length: CLIENTS }, (_, i) => `roll-${i}`)
    const { keys } = await admitFleetClients(f, names)
    const clients = names.map((name, i) => ({ mcp: new ResilientMcp(f.url(), keys.get(name)!), work: makeWorkload(i, name, KINDS, STREAMS) }))

    await Promise.all(clients.map((c) => startAll(c.mcp, c.work, deadline)))
    log("runs started")
    let restartsOver = false
    const workers = clients.map((c) => inFlight((async () => {
      await churn(c.mcp, c.work, () => restartsOver, deadline)
      await finish(c.mcp, c.work, deadline)
    })()))

    const restarts: Array<{ name: string; code: number | null; exitMs: number; readyMs: number; followedMs: number }> = []
    const leftUnfollowed: Array<string> = []
    const doubly: Array<string> = []
    for (const r of f.replicas) {
      const t0 = Date.now()
      const proc = r.process()
      await r.kill("SIGTERM")
      const exit = await proc.exited
      const exitMs = Date.now() - t0
      await r.start()
      const readyMs = Date.now() - t0
      // The window ends when every live run is followed again (the shards spread back over three).
      const followed = await awaitFollowers(sim, t0, FOLLOWERS_WITHIN_MS)
      if (!followed.ok) {
        leftUnfollowed.push(...followed.left)
        const db = await openDb(storageUrl)
        console.log(`unfollowed after ${r.name}'s restart:\n  ${(await describeUnfollowed(sim, f, db)).join("\n  ")}`)
        await db.end()
      }
      doubly.push(...doublyFollowedRuns(sim))
      restarts.push({ name: r.name, code: exit.code, exitMs, readyMs, followedMs: followed.ms })
      log(`${r.name}: exit ${exit.code} after ${exitMs} ms, ready after ${readyMs} ms, every live run followed after ${followed.ms} ms${followed.ok ? "" : ` (${followed.left.length} not)`}`)
    }
    restartsOver = true
    await Promise.all(workers)
    log("workers done")

    const hermes = hermesRunsByInput(sim.handle.state.runs.values())
    const problems: Array<string> = clients.flatMap((c) => c.work.problems)
    let events = 0
    for (const c of clients) {
      for (const run of c.work.runs) {
        const verdict = await verifyRun(c.mcp, run, hermes, deadline)
        problems.push(...verdict.problems)
        events += verdict.events
      }
    }
    await Promise.all(clients.map((c) => c.mcp.close()))
    const byCode: Record<string, number> = {}
    const lost: Record<string, number> = {}
    for (const c of clients) {
      for (const [k, n] of Object.entries(c.mcp.stats.retriedByCode)) byCode[k] = (byCode[k] ?? 0) + n
      for (const [k, n] of Object.entries(c.mcp.stats.lostByKind)) lost[k] = (lost[k] ?? 0) + n
    }
    printFigures("rolling restart figures", {
      runs: CLIENTS * KINDS.length,
      restarts: restarts.length,
      exitMs: spread(restarts.map((r) => r.exitMs)),
      readyMs: spread(restarts.map((r) => r.readyMs)),
      everyRunFollowedMs: spread(restarts.map((r) => r.followedMs)),
      lostCallsRetried: `${clients.reduce((n, c) => n + c.mcp.stats.lostCalls, 0)} ${JSON.stringify(lost)}`,
      answersRetried: JSON.stringify(byCode),
      mcpSessionsOpened: clients.reduce((n, c) => n + c.mcp.stats.sessions, 0),
      statusReads: clients.reduce((n, c) => n + c.work.counts.statuses, 0),
      followReads: clients.reduce((n, c) => n + c.work.counts.follows, 0),
      eventsChecked: events,
      seconds: ((Date.now() - testStart) / 1000).toFixed(1)
    })

    expect(problems.slice(0, 20)).toEqual([])
    expect(restarts.map((r) => r.code)).toEqual(f.replicas.map(() => 0))
    expect(leftUnfollowed).toEqual([])
    expect(doubly).toEqual([])
    // Only the retryable kinds were retried: a refused, cut or timed-out connection, nginx's 502,
    // bridge.unavailable.
    expect(Object.keys(byCode).filter((k) => k !== "bridge.unavailable")).toEqual([])
    expect(Object.keys(lost).filter((k) => !["connection", "no answer", "timeout", "HTTP 502"].includes(k))).toEqual([])
    // Hermes saw each run once (a retried start never started a second one).
    expect(hermes.size).toBe(CLIENTS * KINDS.length)
  }, BUDGET_MS)
})
