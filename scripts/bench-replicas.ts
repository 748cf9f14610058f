/**
 * bench-replicas (issue 25 item 8): 1 vs 2 vs 3 bridge replicas on one PostgreSQL behind nginx
 * (test/support/fleet.ts: real `agent-bridge serve` processes, the documented nginx block).
 *
 * - `agent_run_status` calls/s through nginx with 32 calls in flight for `--seconds` (one live run);
 *   the row is the time per call (1 / rate), so lower is better as for every bench row; ratio to 1.
 * - failover (at `--failover-sizes`, default 3 replicas, to keep `npm run bench` near 2 minutes):
 *   the follower of a streaming run is SIGKILLed, `--kills` times; the time until a survivor
 *   records the run's next event (its `last_seq` moves, read through a survivor every 100 ms); the
 *   median. A killed replica is started again in the background; the next kill waits for it only
 *   when fewer than two replicas are up.
 *
 * Every replica, nginx, PostgreSQL and the simulator share this machine's cores: the figures say
 * what contention costs, not what separate machines would give.
 *
 * Usage: tsx scripts/bench-replicas.ts [--seconds 3] [--kills 10] [--sizes 1,2,3] [--failover-sizes 3]
 */
import type { Client } from "@modelcontextprotocol/client"
import * as os from "node:os"
import { connectMcp } from "../test/support/daemon.ts"
import { type Fleet, type FleetReplica, startFleet } from "../test/support/fleet.ts"
import { startPostgres } from "../test/support/pgServer.ts"

const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? (process.argv[i + 1] ?? fallback) : fallback
}
const SECONDS = Number(arg("seconds", "3"))
const FAILOVER_SIZES = arg("failover-sizes", "3").split(",").map(Number)
const KILLS = Number(arg("kills", "10"))
const SIZES = arg("sizes", "1,2,3").split(",").map(Number)
const IN_FLIGHT = 32
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

type Json = Record<string, any>
const call = async (c: Client, name: string, args: Json): Promise<Json> =>
  ((await c.callTool({ name, arguments: args })) as { structuredContent: Json }).structuredContent

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

/** Calls/s of agent_run_status with IN_FLIGHT loops for SECONDS. */
const statusRate = async (client: Client, runId: string): Promise<number> => {
  const until = Date.now() + SECONDS * 1000
  let calls = 0
  const t0 = Date.now()
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    for (let i = 0; i < 1_000_000 && Date.now() < until; i++) {
      await call(client, "agent_run_status", { run_id: runId })
      calls++
    }
  }))
  return calls / ((Date.now() - t0) / 1000)
}

/** The replica whose log says it follows the run (started or picked up again), within 60 s. */
const followerOf = async (fleet: Fleet, runId: string, _since: Map<string, number>): Promise<FleetReplica> => {
  for (let i = 0; i < 600; i++) {
    for (const r of fleet.replicas) {
      if (!r.isRunning()) continue
      // The whole output: a process keeps only its newest 64 KiB, so an offset taken earlier can
      // point past it; the run id is new, so any line naming it is this run's.
      const out = r.output()
      if (out.split("\n").some((l) => l.includes(runId) && (l.includes("run started") || l.includes("run picked up again")))) return r
    }
    await sleep(100)
  }
  throw new Error(`no replica follows ${runId}`)
}

/** One kill of a streaming run's follower: ms from SIGKILL to its next event recorded, read through a survivor. */
const failoverOnce = async (fleet: Fleet, n: number): Promise<{ ms: number; restarted: Promise<void> }> => {
  const marks = new Map(fleet.replicas.map((r) => [r.name, r.output().length]))
  // A replica that is up (one killed before may still be starting again).
  const starter = await connectMcp(fleet.replicas.find((r) => r.isRunning())!.url, fleet.adminKey, "agents", "modern")
  const run = await call(starter, "agent_run", { agent: "hermes", input: `[sim:deltas=600,slow=60s] failover ${n}` })
  await starter.close()
  const runId = run["run_id"] as string
  const follower = await followerOf(fleet, runId, marks)
  const survivor = fleet.replicas.find((r) => r !== follower && r.isRunning())!
  const reader = await connectMcp(survivor.url, fleet.adminKey, "agents", "modern")
  // Let it stream a moment, so the kill lands mid-run.
  for (let i = 0; i < 100 && (await call(reader, "agent_run_status", { run_id: runId }))["last_seq"] < 3; i++) await sleep(100)
  const before = (await call(reader, "agent_run_status", { run_id: runId }))["last_seq"] as number
  const t0 = Date.now()
  await follower.kill("SIGKILL")
  const killedAt = Date.now()
  // The last batch the dead follower committed may land just after the kill; wait past it.
  let seen = (await call(reader, "agent_run_status", { run_id: runId }))["last_seq"] as number
  let ms = NaN
  for (let i = 0; i < 600; i++) {
    const now = (await call(reader, "agent_run_status", { run_id: runId }))["last_seq"] as number
    if (now > Math.max(seen, before) && Date.now() - killedAt > 300) {
      ms = Date.now() - t0
      break
    }
    if (Date.now() - killedAt <= 300) seen = now
    await sleep(100)
  }
  await call(reader, "agent_run_stop", { run_id: runId }).catch(() => undefined)
  await reader.close()
  return { ms, restarted: follower.start() }
}

const main = async () => {
  console.log(`bench-replicas: ${os.cpus().length} cores shared by every replica, nginx, PostgreSQL and the simulator; load ${os.loadavg()[0]!.toFixed(1)}`)
  const pg = await startPostgres()
  const rows: Array<Json> = []
  let rate1 = NaN
  let failover2 = NaN
  try {
    for (const n of SIZES) {
      const fleet = await startFleet({ storageUrl: await pg.createDatabase(), replicas: n })
      try {
        const client = await connectMcp(fleet.url(), fleet.adminKey, "agents", "modern")
        const live = await call(client, "agent_run", { agent: "hermes", input: "[sim:slow=300s] stay live" })
        await statusRate(client, live["run_id"]).catch(() => 0) // warm-up, not counted
        const rate = await statusRate(client, live["run_id"])
        await client.close()
        if (n === SIZES[0]) rate1 = rate
        console.log(`  ${n} replica(s): agent_run_status ${rate.toFixed(0)} calls/s with ${IN_FLIGHT} in flight${Number.isNaN(rate1) ? "" : ` (×${(rate / rate1).toFixed(2)} of ${SIZES[0]})`}`)
        rows.push({ metric: `agent_run_status ms/call, ${n} replica(s), ${IN_FLIGHT} in flight`, value: 1000 / rate, baseline: 1000 / rate1, baselineName: `${SIZES[0]} replica(s)` })
        if (n >= 2 && KILLS > 0 && FAILOVER_SIZES.includes(n)) {
          const times: Array<number> = []
          let pending: Promise<void> = Promise.resolve()
          for (let k = 0; k < KILLS; k++) {
            if (fleet.replicas.filter((r) => r.isRunning()).length < 2) await pending
            const once = await failoverOnce(fleet, k)
            times.push(once.ms)
            pending = Promise.all([pending, once.restarted]).then(() => undefined)
          }
          await pending
          const med = median(times.filter((t) => !Number.isNaN(t)))
          if (Number.isNaN(failover2)) failover2 = med
          console.log(`  ${n} replicas: failover (SIGKILL of the follower → next event recorded) median ${med.toFixed(0)} ms of ${times.length} [${times.map((t) => t.toFixed(0)).join(", ")}]`)
          rows.push({ metric: `failover ms (median of ${KILLS} SIGKILLs), ${n} replicas`, value: med, baseline: failover2, baselineName: `${n} replicas`, goal: "≤ 10000 ms", noRatio: true })
        }
      } finally {
        await fleet.stop()
      }
    }
  } finally {
    await pg.stop()
  }
  console.log(`BENCH_JSON ${JSON.stringify({ bench: "replicas", rows })}`)
}

main().then(() => process.exit(0), (e) => {
  console.error(e)
  process.exit(1)
})
