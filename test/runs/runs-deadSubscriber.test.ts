/**
 * The bridge restarted while a run is quiet, against a simulator of the released Hermes (older
 * generation): Hermes notices the dead follower's connection only at its next write, so the
 * re-attach gets 200 and shares the dead one's queue; the next event goes to the dead one, the
 * queue is dropped, and the new stream sees only keepalives (docs/SIMULATOR.md). The run must end
 * in the bridge anyway, from Hermes's status (docs/RELIABILITY.md, "restart").
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { SimRun } from "../../src/hermes/sim/run.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, statusIs } from "./support/harness.ts"
import { simHarness } from "./support/simHarness.ts"

const alice = as("alice")

const simRunOf = (sim: { readonly state: { readonly runs: ReadonlyMap<string, SimRun> } }, input: string) =>
  [...sim.state.runs.values()].find((r) => r.input === input)!

/** The events requests the simulator answered for this run (its re-attaches). */
const eventsRequests = (h: Effect.Effect.Success<ReturnType<typeof simHarness>>, run: SimRun) =>
  Effect.map(h.sim.requests, (rs) => rs.filter((r) => r.method === "GET" && r.path.endsWith(`/v1/runs/${run.id}/events`)).length)

describe("a bridge restart during a quiet run (older Hermes: a dead subscriber keeps the queue)", () => {
  it.live("an approval decided after the restart: the run ends in the bridge with Hermes's output", () =>
    Effect.gen(function* () {
      const h = yield* simHarness({ sim: { generation: "old" }, quietCheckMs: 1_000 })
      const input = "[sim:approval] clean up"
      const view = yield* alice(h.runs.start({ agent: "hermes", input }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      const simRun = simRunOf(h.sim, input)

      const second = yield* h.rebuild
      // The re-attach was answered 200 while the dead connection was still registered.
      yield* eventually(eventsRequests(h, simRun), (n) => n >= 2, "the re-attach")
      expect(simRun.bufferDropped).toBe(false)
      const [row] = yield* second.inbox.list({ state: "pending" })
      yield* second.inbox.decide(row!.id, { approve: true, by: "admin" })
      // The answer's event went to the dead subscriber and took the queue with it.
      yield* eventually(Effect.sync(() => simRun.status), (s) => s === "completed", "the end in Hermes", )
      expect(simRun.bufferDropped).toBe(true)

      const done = yield* alice(second.runs.wait(view.run_id, 30))
      expect(done.status).toBe("completed")
      expect(done.output).toBe(simRun.output)
      expect(yield* second.supervisor.isFollowed(view.run_id)).toBe(false)
      const types = (yield* alice(second.runs.events(view.run_id, 0, 500))).events.map((e) => e.type)
      expect(types.filter((t) => t === "run.completed")).toHaveLength(1)
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 90_000)

  it.live("nobody decides: Hermes denies the approval on its timeout and finishes; the bridge follows suit", () =>
    Effect.gen(function* () {
      const h = yield* simHarness({ sim: { generation: "old", approvalTimeoutMs: 2_000 }, quietCheckMs: 1_000 })
      const input = "[sim:approval] clean up, unattended"
      const view = yield* alice(h.runs.start({ agent: "hermes", input }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      const second = yield* h.rebuild
      const simRun = simRunOf(h.sim, input)
      const done = yield* alice(second.runs.wait(view.run_id, 30))
      expect(simRun.bufferDropped).toBe(true)
      expect([done.status, done.output]).toEqual([simRun.status, simRun.output])
      // The approval is expired by the write that ended the run's wait, just after it (on PostgreSQL, a round trip later).
      yield* eventually(second.inbox.list({ state: "pending" }), (rows) => rows.length === 0, "the approval's expiry")
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 90_000)

  it.live("a stop after Hermes ended the run on the dead queue settles it from Hermes's status", () =>
    Effect.gen(function* () {
      // The quiet check is out of the way (an hour), so only the stop can settle the run.
      const h = yield* simHarness({ sim: { generation: "old" }, quietCheckMs: 3_600_000 })
      const input = "[sim:approval] clean up, then stop"
      const view = yield* alice(h.runs.start({ agent: "hermes", input }))
      yield* eventually(alice(h.runs.status(view.run_id, 0)), statusIs("waiting_for_approval"), "approval")
      const simRun = simRunOf(h.sim, input)
      const second = yield* h.rebuild
      yield* eventually(eventsRequests(h, simRun), (n) => n >= 2, "the re-attach")
      const [row] = yield* second.inbox.list({ state: "pending" })
      yield* second.inbox.decide(row!.id, { approve: true, by: "admin" })
      yield* eventually(Effect.sync(() => simRun.status), (s) => s === "completed", "the end in Hermes")
      // Still waiting in the bridge: its stream carries only keepalives.
      expect((yield* alice(second.runs.status(view.run_id, 0))).status).not.toBe("completed")
      const stopped = yield* alice(second.runs.stop(view.run_id))
      expect([stopped.status, stopped.output]).toEqual(["completed", simRun.output])
      yield* eventually(second.supervisor.isFollowed(view.run_id), (b) => !b, "the follower's end")
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 90_000)
})
