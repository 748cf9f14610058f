/**
 * Soak: 10,000 short runs through the whole daemon (MCP over loopback HTTP, the live Hermes client,
 * the simulator), with retention on and a clock the test moves past the retention period after each
 * quarter (Hermes, simulated, runs in a child process). After every sweep the ledger is empty again, the database file stays the size the first
 * sweep left (SQLite reuses the freed pages), and the process's memory does not grow with the runs.
 */
import * as v8 from "node:v8"
import * as vm from "node:vm"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tempDir, testConfig } from "../support/daemon.ts"
import { makeSkewClock } from "../support/skewClock.ts"
import { eventually } from "./support/bounded.ts"
import { type McpSession, openSession } from "./support/mcpClient.ts"
import { type SimProcess, startSimProcess } from "./support/simProcess.ts"
import { type SoakDaemon, startSoakDaemon } from "./support/soakDaemon.ts"

const RUNS = 10_000
const CYCLES = 4
const CLIENTS = 8
const IN_FLIGHT_PER_CLIENT = 4
const RETENTION_DAYS = 2
const MiB = 1024 * 1024

v8.setFlagsFromString("--expose-gc")
const gc = vm.runInNewContext("gc") as () => void

interface Sample {
  readonly cycle: number
  readonly runs: number
  readonly seconds: number
  readonly dbBytes: number
  readonly walBytes: number
  readonly rss: number
  readonly heapUsed: number
}

describe("soak", () => {
  const clock = makeSkewClock()
  let sim: SimProcess
  let daemon: SoakDaemon
  let sessions: ReadonlyArray<McpSession>
  let keys: ReadonlyArray<string>
  let dir: string | undefined

  beforeAll(async () => {
    // Hermes in its own process: this process's memory is then the bridge's (and its clients').
    sim = await startSimProcess({ generation: "new", maxConcurrentRuns: CLIENTS * IN_FLIGHT_PER_CLIENT * 2 })
    dir = tempDir("agent-bridge-rel-")
    daemon = await startSoakDaemon(testConfig({
      bridge: { run_retention_days: RETENTION_DAYS, max_concurrent_runs_per_client: IN_FLIGHT_PER_CLIENT },
      hermes: { url: sim.url, key: sim.key, max_concurrent_runs: CLIENTS * IN_FLIGHT_PER_CLIENT * 2 },
      memory: { enabled: false }
    }, dir), clock)
    keys = await Promise.all(Array.from({ length: CLIENTS }, (_, i) => daemon.addClient(`soak-${i}`)))
    sessions = await Promise.all(keys.map((key) => openSession(daemon.url, key)))
  })
  afterAll(async () => {
    for (const s of sessions ?? []) await s.close()
    await daemon?.close()
    await sim?.stop()
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
  })

  it(`${RUNS} short runs with retention on: the ledger empties, the database file and memory stay flat`, async () => {
    const problems: Array<string> = []
    const samples: Array<Sample> = []
    let started = 0
    const perCycle = RUNS / CYCLES
    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const t0 = Date.now()
      const last = cycle * perCycle
      const worker = async (session: McpSession) => {
        while (started < last) {
          const n = started++
          const out = await session.call("agent_run", { agent: "hermes", input: `soak ${n} [sim:deltas=1]`, wait_s: 30 }, 60_000)
          if (!out.ok) problems.push(`run ${n}: ${out.text}`)
          else if (out.value.status !== "completed") problems.push(`run ${n}: ${out.value.status}`)
        }
      }
      await Promise.all(sessions.flatMap((s) => Array.from({ length: IN_FLIGHT_PER_CLIENT }, () => worker(s))))
      const seconds = (Date.now() - t0) / 1000

      // Past the retention period: the hourly sweep is due at once.
      clock.advance(`${RETENTION_DAYS + 1} days`)
      const stored = await eventually("the retention sweep", 60_000, () => daemon.storage(), (s) => s.runs === 0, 250)
      expect(stored).toMatchObject({ runs: 0, events: 0, outputChunks: 0 })
      gc()
      const memory = process.memoryUsage()
      samples.push({ cycle, runs: last, seconds, dbBytes: stored.dbBytes, walBytes: stored.walBytesBefore, rss: memory.rss, heapUsed: memory.heapUsed })
      // Days have passed on the daemon's clock, so its sessions are idle past their 30 minutes and
      // swept: each client opens a new one, as a real client would after that long.
      for (const session of sessions) await session.close()
      sessions = await Promise.all(keys.map((key) => openSession(daemon.url, key)))
    }

    const first = samples[0]!
    const final = samples.at(-1)!
    const heapPerRun = (final.heapUsed - first.heapUsed) / (RUNS - first.runs)
    const mib = (n: number) => (n / MiB).toFixed(1)
    console.log([
      `soak figures (${RUNS} runs, ${CLIENTS} clients × ${IN_FLIGHT_PER_CLIENT} in flight, retention ${RETENTION_DAYS} days):`,
      "  cycle  runs  seconds  runs/s  db MiB  wal MiB (before checkpoint)  rss MiB  heap MiB",
      ...samples.map((s) =>
        `  ${String(s.cycle).padStart(5)}  ${String(s.runs).padStart(5)}  ${s.seconds.toFixed(1).padStart(7)}  ${(RUNS / CYCLES / s.seconds).toFixed(0).padStart(6)}  ${mib(s.dbBytes).padStart(6)}  ${mib(s.walBytes).padStart(7)}  ${mib(s.rss).padStart(30)}  ${mib(s.heapUsed).padStart(8)}`),
      `  heap growth after the first sweep: ${(heapPerRun).toFixed(0)} bytes per run`
    ].join("\n"))

    expect(problems.slice(0, 10)).toEqual([])
    expect(started).toBe(RUNS)
    // Flat: later sweeps leave the database file no bigger than the first one did (pages reused).
    for (const s of samples) expect(s.dbBytes).toBeLessThanOrEqual(first.dbBytes * 1.2 + 256 * 1024)
    // Memory does not grow with the runs: well under a kilobyte per run after the first quarter.
    expect(heapPerRun).toBeLessThan(1024)
    expect(final.rss - first.rss).toBeLessThan(64 * MiB)
  }, 900_000)
})
