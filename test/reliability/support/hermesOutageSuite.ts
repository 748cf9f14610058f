/**
 * Hermes outage: the simulated Hermes goes away mid-stream and comes back, for both protocol
 * generations: as a network outage (its runs go on), and as a restart that keeps (newer builds) or
 * loses its in-memory runs. Runs resume to their end with nothing lost or repeated, or end
 * `interrupted` with a clear error; waits end or time out; no call hangs; `agents_list` says `down`
 * while Hermes is away and `ok` once it is back.
 */
import * as fs from "node:fs"
import { Effect } from "effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { startSimulatorAsync, type SimulatorAsync } from "../../../src/hermes/sim/layer.ts"
import type { SimGeneration } from "../../../src/hermes/sim/options.ts"
import { RESTART_ERROR } from "../../../src/hermes/sim/run.ts"
import { startDaemon, tempDir, testConfig, type TestDaemon } from "../../support/daemon.ts"
import { bounded, eventually, sleep } from "./bounded.ts"
import { type McpSession, openSession, ResilientMcp, type ToolOutcome } from "./mcpClient.ts"
import { eventProblems, readAllEvents, readOutput, textOf, viaMcp } from "./runChecks.ts"

/** Ceiling for one ordinary call; a wait gets its own timeout on top. */
const CALL_MS = 20_000

/** A call left in flight while the test goes on: awaited later, so a failure is reported there. */
const inFlight = <A>(p: Promise<A>): Promise<A> => {
  p.catch(() => undefined)
  return p
}

const ok = (what: string, o: ToolOutcome) => {
  if (!o.ok) throw new Error(`${what}: ${o.text}`)
  return o.value
}

/** The suite for one generation: `hermesOutage.new.test.ts` and `hermesOutage.old.test.ts` run one each, side by side. */
export const hermesOutageSuite = (generation: SimGeneration) => describe(`Hermes outage (${generation} generation)`, () => {
  let sim: SimulatorAsync
  let daemon: TestDaemon
  let mcp: McpSession
  let reader: ResilientMcp
  let counter = 0
  let dir: string | undefined

  beforeAll(async () => {
    sim = await startSimulatorAsync({ generation, maxConcurrentRuns: 100 })
    dir = tempDir("agent-bridge-rel-")
    daemon = await startDaemon(testConfig({
      bridge: { max_concurrent_runs_per_client: 50 },
      hermes: { url: sim.url, key: sim.profile("default").key, timeout_ms: 5_000, max_concurrent_runs: 100 },
      memory: { enabled: false }
    }, dir))
    const key = await daemon.addClient("outage")
    mcp = await openSession(daemon.url, key)
    // Reads of the final state only; every call under test goes through `mcp`, one attempt each.
    reader = new ResilientMcp(daemon.url, key)
  })
  // A test that failed while Hermes was away leaves it away: bring it back, so that the next test
  // fails (or passes) on its own account and not as a consequence.
  afterEach(async () => {
    if (sim !== undefined && !(await Effect.runPromise(sim.handle.isUp))) await sim.start()
  })
  afterAll(async () => {
    await mcp?.close()
    await reader?.close()
    await daemon?.close()
    await sim?.close()
    if (dir !== undefined) fs.rmSync(dir, { recursive: true, force: true })
  })

  const call = (tool: string, args: Record<string, unknown>, ms = CALL_MS) =>
    bounded(`${tool} ${JSON.stringify(args).slice(0, 80)}`, ms + 5_000, mcp.call(tool, args, ms))
  const start = async (script: string) => {
    const input = `outage ${generation} #${++counter} ${script}`
    return { input, runId: ok("agent_run", await call("agent_run", { agent: "hermes", input })).run_id as string }
  }
  const status = async (runId: string) => ok("agent_run_status", await call("agent_run_status", { run_id: runId }))
  const health = async () => (ok("agents_list", await call("agents_list", {})).agents as ReadonlyArray<{ name: string; health?: string }>).find((a) => a.name === "hermes")?.health
  const hermesRun = (input: string) => [...sim.handle.state.runs.values()].find((r) => r.input === input)

  /** The run's stored events and whole output are consistent, and the output is Hermes's. */
  const checkIntact = async (input: string, runId: string, expected = hermesRun(input)?.output) => {
    const read = viaMcp(reader, Date.now() + 60_000)
    const { output, view } = await readOutput(read, runId)
    const events = await readAllEvents(read, runId)
    expect(eventProblems(events, view.last_seq)).toEqual([])
    expect(output).toBe(expected)
    expect(textOf(events)).toBe(output)
  }

  it("an outage mid-stream: runs resume to their end, waits end or time out, agents_list says down meanwhile", async () => {
    // Long enough to be still streaming when Hermes goes, on a loaded machine too (at 5 s, with the
    // machine at load 20, a run could end before the outage began and its short wait not time out).
    const streaming = await Promise.all([1, 2, 3, 4].map(() => start("[sim:slow=15s,events=120]")))
    for (const r of streaming) await eventually("events before the outage", 30_000, () => status(r.runId), (v) => v.last_seq >= 3)
    expect(await health()).toBe("ok")

    await sim.stop()
    const outageStarted = Date.now()
    // agents_list answers within its 2 s budget and reports the outage once its short cache expires.
    const down = await eventually("agents_list shows down", 20_000, () => bounded("agents_list", 10_000, health()), (h) => h === "down", 500)
    expect(down).toBe("down")
    // A short wait times out cleanly; a long one is left running across the outage.
    const short = ok("short wait", await call("agent_run_wait", { run_id: streaming[0]!.runId, timeout_s: 1 }))
    expect(short.timed_out).toBe(true)
    const long = inFlight(call("agent_run_wait", { run_id: streaming[1]!.runId, timeout_s: 90 }, 95_000))
    const refused = await call("agent_run", { agent: "hermes", input: "while Hermes is away" })
    expect(refused.ok ? "started" : refused.code).toBe("bridge.agent_unavailable")
    // The ledger still answers while Hermes is away.
    expect((await status(streaming[2]!.runId)).status).toBe("running")
    await sleep(Math.max(0, 3_000 - (Date.now() - outageStarted)))
    await sim.start()

    const ended = ok("long wait", await long)
    expect(ended.timed_out).toBe(false)
    expect(ended.status).toBe("completed")
    for (const r of streaming) {
      const done = ok("wait", await call("agent_run_wait", { run_id: r.runId, timeout_s: 60 }, 65_000))
      expect(done.status).toBe("completed")
      await checkIntact(r.input, r.runId)
    }
    expect(await eventually("agents_list shows ok again", 20_000, () => health(), (h) => h === "ok", 500)).toBe("ok")
  })

  it("a clarification pending through an outage can still be answered afterwards", async () => {
    const r = await start("[sim:clarify]")
    const asked = ok("wait", await call("agent_run_wait", { run_id: r.runId, timeout_s: 30 }, 35_000))
    expect(asked.pending?.request_id).toBeTypeOf("string")
    await sim.stop()
    const during = ok("wait during the outage", await call("agent_run_wait", { run_id: r.runId, timeout_s: 1 }))
    expect(during.pending?.request_id).toBe(asked.pending.request_id)
    const refused = await call("agent_run_answer", { run_id: r.runId, request_id: asked.pending.request_id, answer: "staging" })
    expect(refused.ok ? "answered" : refused.code).toBe("bridge.agent_unavailable")
    await sleep(1_500)
    await sim.start()
    const answered = await eventually("the answer gets through", 30_000, () =>
      call("agent_run_answer", { run_id: r.runId, request_id: asked.pending.request_id, answer: "staging" }), (o) => o.ok)
    expect(answered.ok).toBe(true)
    const done = ok("wait", await call("agent_run_wait", { run_id: r.runId, timeout_s: 60 }, 65_000))
    expect(done.status).toBe("completed")
    await checkIntact(r.input, r.runId)
  })

  /** Hermes's own error for a run its restart cut short, or the bridge's for a run Hermes forgot. */
  const forgotten = /^Hermes no longer knows this run/
  const restartCases: ReadonlyArray<{ readonly loseRuns: boolean; readonly error: string | RegExp }> =
    generation === "new"
      ? [{ loseRuns: false, error: RESTART_ERROR }, { loseRuns: true, error: forgotten }]
      // Older builds forget every run on a restart, whatever is asked.
      : [{ loseRuns: true, error: forgotten }]

  it.each(restartCases)("a Hermes restart (loseRuns: $loseRuns) ends unsettled runs interrupted; waits end", async ({ loseRuns, error }) => {
    const streaming = await Promise.all([1, 2, 3].map(() => start("[sim:slow=30s,events=60]")))
    const asking = await start("[sim:clarify]")
    const finished = await start("[sim:deltas=2]")
    for (const r of streaming) await eventually("events before the restart", 30_000, () => status(r.runId), (v) => v.last_seq >= 3)
    await eventually("a pending question", 30_000, () => status(asking.runId), (v) => v.pending !== null)
    const done = ok("wait", await call("agent_run_wait", { run_id: finished.runId, timeout_s: 30 }, 35_000))
    expect(done.status).toBe("completed")
    // A restart that loses runs takes Hermes's copy of the finished one too.
    const finishedOutput = hermesRun(finished.input)?.output

    // Waits in flight across the restart (a run with a question pending answers a wait at once,
    // so its wait starts after the restart).
    const waits = streaming.map((r) => inFlight(call("agent_run_wait", { run_id: r.runId, timeout_s: 120 }, 125_000)))
    await sim.restart({ loseRuns, downMs: 2_000 })
    await eventually("the asking run ends", 60_000, () => status(asking.runId), (v) => v.status !== "waiting_for_clarification")
    waits.push(call("agent_run_wait", { run_id: asking.runId, timeout_s: 120 }, 125_000))
    const settled = await Promise.allSettled(waits)
    for (const [i, w] of settled.entries()) {
      if (w.status === "rejected") throw w.reason
      const view = ok(`wait ${i}`, w.value)
      expect(view.timed_out).toBe(false)
      expect(view.status).toBe("interrupted")
      expect(view.error).toMatch(error)
      expect(view.pending).toBeNull()
      const events = await readAllEvents(viaMcp(reader, Date.now() + 30_000), view.run_id)
      expect(eventProblems(events, view.last_seq)).toEqual([])
      expect(events.at(-1)?.type).toBe("run.interrupted")
    }
    // A run that ended before the restart keeps its outcome.
    expect((await status(finished.runId)).status).toBe("completed")
    await checkIntact(finished.input, finished.runId, finishedOutput)
    // And Hermes takes new runs again.
    const after = await start("[sim:deltas=2]")
    const afterDone = ok("wait", await call("agent_run_wait", { run_id: after.runId, timeout_s: 60 }, 65_000))
    expect(afterDone.status).toBe("completed")
  })
})
