/**
 * What the replica fault tests (rolling restart, replicated chaos) share on top of the fleet
 * (test/support/fleet.ts): clients admitted in the fleet's database, the Hermes side's view of who
 * follows which run (the simulator's subscribers), the ledger's live runs per client, and a
 * summary line of figures.
 */
import { Either } from "effect"
import pg from "pg"
import { loadConfig } from "../../../src/config/load.ts"
import type { SimulatorAsync } from "../../../src/hermes/sim/layer.ts"
import type { Fleet } from "../../support/fleet.ts"
import { admitClients } from "./bridgeSetup.ts"
import { sleep } from "./bounded.ts"

const TERMINAL_SIM = new Set(["completed", "failed", "cancelled", "interrupted"])

/** Admits the clients in the fleet's database, as `agent-bridge client add` would with a replica's config. */
export const admitFleetClients = async (fleet: Fleet, names: ReadonlyArray<string>) => {
  const loaded = loadConfig({ configPath: fleet.replicas[0]!.configFile, env: {} })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  return admitClients(loaded.right, names)
}

/**
 * For runs left without a follower, what each side knows: Hermes's status, the ledger's, and the
 * last line of each replica's log that names the run (which replica had it, and what it said).
 */
export const describeUnfollowed = async (sim: SimulatorAsync, fleet: Fleet, db: DbReads, limit = 5): Promise<ReadonlyArray<string>> => {
  const left = [...sim.handle.state.runs.values()].filter((r) => !TERMINAL_SIM.has(r.status) && r.subscribers.size === 0).slice(0, limit)
  const out: Array<string> = []
  for (const r of left) {
    const row = (await db.query<{ run_id: string; status: string; last_seq: number }>(
      "SELECT run_id, status, last_seq FROM runs WHERE hermes_run_id = $1", [r.id]
    ).catch(() => ({ rows: [] }))).rows[0]
    const logs = row === undefined ? [] : fleet.replicas.map((x) => {
      const lines = x.output().split("\n").filter((l) => l.includes(row.run_id))
      return `${x.name}: ${lines.length} lines, last: ${(lines.at(-1) ?? "-").slice(0, 300)}`
    })
    out.push(`${r.input}: Hermes ${r.status}; ledger ${row === undefined ? "no row" : `${row.run_id} ${row.status} last_seq ${row.last_seq}`}\n    ${logs.join("\n    ")}`)
  }
  return out
}

/** The runs live in Hermes that no replica follows right now (no open event stream), by input. */
export const unfollowedRuns = (sim: SimulatorAsync): ReadonlyArray<string> =>
  [...sim.handle.state.runs.values()].filter((r) => !TERMINAL_SIM.has(r.status) && r.subscribers.size === 0).map((r) => r.input)

/** Live Hermes runs with more than one open event stream (two followers at once), by input. */
export const doublyFollowedRuns = (sim: SimulatorAsync): ReadonlyArray<string> =>
  [...sim.handle.state.runs.values()].filter((r) => !TERMINAL_SIM.has(r.status) && r.subscribers.size > 1).map((r) => r.input)

/**
 * Waits until every live Hermes run has a follower again; returns how long that took (from
 * `since`) or, past `withinMs`, the runs still without one.
 */
export const awaitFollowers = async (sim: SimulatorAsync, since: number, withinMs: number) => {
  const deadline = Date.now() + withinMs
  for (;;) {
    const left = unfollowedRuns(sim)
    if (left.length === 0) return { ok: true as const, ms: Date.now() - since }
    if (Date.now() > deadline) return { ok: false as const, ms: Date.now() - since, left }
    await sleep(100)
  }
}

/** The test's own reads of the fleet's database. */
export interface DbReads {
  readonly query: <T extends object>(text: string, values?: ReadonlyArray<unknown>) => Promise<{ readonly rows: Array<T> }>
  readonly end: () => Promise<void>
}

/**
 * Reads of the fleet's database, each on a connection of its own: the scenarios restart the
 * PostgreSQL server, which ends every open connection (57P01), and a kept one would be dead after.
 */
export const openDb = async (url: string): Promise<DbReads> => ({
  query: async <T extends object>(text: string, values: ReadonlyArray<unknown> = []) => {
    const db = new pg.Client({ connectionString: url })
    // A connection the server ends is reported here, not as an uncaught error of the test file.
    db.on("error", () => undefined)
    await db.connect()
    try {
      return { rows: (await db.query(text, [...values])).rows as Array<T> }
    } finally {
      await db.end().catch(() => undefined)
    }
  },
  end: async () => undefined
})

/** The ledger's non-terminal runs per client. */
export const liveRunsByClient = async (db: DbReads): Promise<ReadonlyMap<string, number>> => {
  const rows = (await db.query<{ client: string; n: string }>(
    "SELECT client, count(*) AS n FROM runs WHERE status NOT IN ('completed', 'failed', 'cancelled', 'interrupted') GROUP BY client"
  )).rows
  return new Map(rows.map((r) => [r.client, Number(r.n)]))
}

/** Prints the figures as one block (the issue asks for them in the report). */
export const printFigures = (title: string, figures: Record<string, unknown>) =>
  console.log(`${title}:\n${Object.entries(figures).map(([k, v]) => `  ${k}: ${v}`).join("\n")}`)

/** Median and maximum of a list of milliseconds, as text. */
export const spread = (ms: ReadonlyArray<number>) => {
  if (ms.length === 0) return "none"
  const s = [...ms].sort((a, b) => a - b)
  return `median ${s[Math.floor(s.length / 2)]} ms, max ${s.at(-1)} ms (${ms.join(" ")})`
}
