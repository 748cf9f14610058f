/**
 * `HermesClient.follow` against the simulator over real HTTP: a run followed to its end across
 * dropped connections, outages and restarts, in both generations, without losing the final output.
 */
import { describe, expect, layer } from "@effect/vitest"
import { Effect, Fiber, Schedule, Stream } from "effect"
import { GONE_ERROR } from "../../src/hermes/client/follow.ts"
import type { HermesEvent } from "../../src/hermes/client/HermesClient.ts"
import { RESTART_ERROR } from "../../src/hermes/sim/run.ts"
import { fillerText } from "../../src/hermes/sim/script.ts"
import { SimulatedHermes } from "../../src/hermes/sim/layer.ts"
import { bridgeHermes } from "../../src/services/hermes-failures/bridgeHermes.ts"
import { clientAndSim, collect, defaultProfile, deltasOf, followInBackground, polledAgain, simStatus, withKey } from "./support/sim.ts"

const opts = { timeout: "2 seconds", pollInterval: "30 millis" } as const
const eventsRequests = (reqs: ReadonlyArray<{ readonly path: string; readonly headers: Readonly<Record<string, string>> }>, id: string) =>
  reqs.filter((r) => r.path === `/v1/runs/${id}/events`)

for (const generation of ["old", "new"] as const) {
  describe(`follow (${generation} build)`, () => {
    layer(SimulatedHermes({ generation, approvalTimeoutMs: 10_000 }, opts), { excludeTestServices: true })((it) => {
      it.effect("follows a run to its end; the streamed text is the output", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "follow me [sim:deltas=40]" })
          let reattaches = 0
          const events = yield* collect(hermes.follow(p, hermesRunId, { onReattach: Effect.sync(() => { reattaches += 1 }) }))
          expect(reattaches).toBe(0)
          expect(events.at(-1)?.event).toBe("run.completed")
          expect(events.some((e) => e.data.synthetic === true)).toBe(false)
          expect(deltasOf(events)).toBe(events.at(-1)?.data.output)
          expect(events.filter((e) => e.event === "message.delta")).toHaveLength(40)
        }))

      it.effect(generation === "new"
        ? "after a dropped connection, resumes with Last-Event-ID: no gap, no duplicate"
        : "after a dropped connection (reconnect is 404), polls status and still delivers the whole output", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:drop=5,deltas=30,slow=300]" })
          // Every open of the events route after the first is a re-attach (quietWatch.ts suspects it).
          let reattaches = 0
          const events = yield* collect(hermes.follow(p, hermesRunId, { onReattach: Effect.sync(() => { reattaches += 1 }) }))
          const done = events.at(-1)
          expect(done?.event).toBe("run.completed")
          expect(deltasOf(events)).toBe(done?.data.output)
          const connects = eventsRequests(yield* sim.requests, hermesRunId)
          expect(connects.length).toBeGreaterThanOrEqual(2)
          expect(reattaches).toBe(connects.length - 1)
          if (generation === "new") {
            expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i))
            expect(connects[1]?.headers["last-event-id"]).toMatch(/^\d+$/)
          } else {
            expect(done?.data.synthetic).toBe(true)
            expect((yield* sim.requests).some((r) => r.path === `/v1/runs/${hermesRunId}`)).toBe(true)
          }
        }))

      it.effect("followInto (the follower's way) hands on every event in order across a drop, waiting for a slow emit", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:drop=5,deltas=30,slow=300]" })
          const events: Array<HermesEvent> = []
          let inEmit = 0
          let overlapped = false
          yield* hermes.followInto(p, hermesRunId, undefined, (e) =>
            Effect.gen(function* () {
              inEmit += 1
              if (inEmit > 1) overlapped = true
              events.push(e)
              yield* Effect.sleep("3 millis")
              inEmit -= 1
            }))
          expect(overlapped).toBe(false)
          expect(events.at(-1)?.event).toBe("run.completed")
          expect(deltasOf(events)).toBe(events.at(-1)?.data.output)
          // The old build's missed tail comes as one synthesised delta (its reconnect is 404).
          if (generation === "new") expect(events.filter((e) => e.event === "message.delta")).toHaveLength(30)
        }))

      it.effect("a large output survives a dropped connection whole", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:output=64k,drop]" })
          const events = yield* collect(hermes.follow(p, hermesRunId))
          expect(events.at(-1)?.data.output).toBe(fillerText(64 * 1024))
          expect(deltasOf(events)).toBe(fillerText(64 * 1024))
        }))

      it.effect("rides out an outage (Hermes unreachable mid-stream, then back)", () =>
        Effect.gen(function* () {
          const { hermes, sim } = yield* clientAndSim
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:slow=800,deltas=20]" })
          const follower = yield* followInBackground(hermes.follow(p, hermesRunId))
          // Mid-stream: a delta came; then Hermes goes away while the run goes on, until it has
          // published frames the follower never saw.
          yield* follower.waitFor((e) => e.event === "message.delta")
          yield* sim.stop
          const seen = (yield* follower.seen).length
          yield* Effect.sync(() => sim.state.runs.get(hermesRunId)?.nextSeq ?? 0).pipe(
            Effect.repeat({ until: (n) => n >= seen + 3, schedule: Schedule.spaced("5 millis") }),
            Effect.timeoutFail({ duration: "10 seconds", onTimeout: () => new Error("the run published nothing during the outage") })
          )
          yield* sim.start
          const events = yield* follower.done
          expect(events.at(-1)?.event).toBe("run.completed")
          expect(deltasOf(events)).toBe(events.at(-1)?.data.output)
          if (generation === "new") expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i))
        }))

      it.effect(generation === "new"
        ? "a Hermes restart: the run ends interrupted with Hermes's own error"
        : "a Hermes restart that forgets the run: it ends interrupted, saying Hermes no longer knows it", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:restart,slow=300]" })
          const events = yield* collect(hermes.follow(p, hermesRunId))
          const last = events.at(-1)
          expect(last?.event).toBe("run.interrupted")
          expect(last?.data.synthetic).toBe(true)
          expect(last?.data.error).toBe(generation === "new" ? RESTART_ERROR : GONE_ERROR)
        }))

      it.effect("resumes after the bridge itself restarted (a second follower with the last id seen)", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:slow=400,deltas=16]" })
          const first = yield* collect(hermes.follow(p, hermesRunId).pipe(Stream.take(6)))
          // What the bridge's ledger would hold: the last frame id (newer builds) and the text so far.
          const lastEventId = first.at(-1)?.id ?? undefined
          const rest = yield* collect(hermes.follow(p, hermesRunId, { lastEventId, receivedText: deltasOf(first) }))
          const all = [...first, ...rest]
          expect(all.at(-1)?.event).toBe("run.completed")
          expect(deltasOf(all)).toBe(all.at(-1)?.data.output)
          if (generation === "new") expect(all.map((e) => e.id)).toEqual(all.map((_, i) => i))
        }))

      // Older builds' status shows no pending approval, so polling has nothing to announce there.
      it.effect.skipIf(generation === "old")("while polling, a pending approval is announced once, and the run goes on when answered", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          // The connection drops before the approval request is streamed.
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:approval,drop=1]" })
          const follower = yield* followInBackground(hermes.follow(p, hermesRunId))
          const announced = yield* follower.waitFor((e) => e.event === "approval.request")
          // While it is pending the follower goes on: an older build's follower polls (three polls
          // that each see it, none announcing it again); a newer one streams after its resume, where
          // a repeat would come at once (a fixed window for what must not come, then the answer).
          yield* (generation === "old" ? polledAgain(hermesRunId, 3) : Effect.sleep("100 millis"))
          yield* hermes.approval(p, hermesRunId, { choice: "once", requestId: String(announced.data.request_id) })
          const events = yield* follower.done
          const requests = events.filter((e) => e.event === "approval.request")
          expect(requests).toHaveLength(1)
          expect(requests[0]?.data).toMatchObject({ request_id: expect.stringMatching(/^[0-9a-f]{32}$/), command: "rm -rf ./build" })
          expect(events.at(-1)?.event).toBe("run.completed")
          expect(events.at(-1)?.data.output).toContain("after approval")
        }))

      it.effect("while polling, a pending clarification is announced once", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:clarify,drop=2]" })
          const follower = yield* followInBackground(hermes.follow(p, hermesRunId))
          const announced = yield* follower.waitFor((e) => e.event === "clarify.request")
          // While it is pending the follower goes on: an older build's follower polls (three polls
          // that each see it, none announcing it again); a newer one streams after its resume, where
          // a repeat would come at once (a fixed window for what must not come, then the answer).
          yield* (generation === "old" ? polledAgain(hermesRunId, 3) : Effect.sleep("100 millis"))
          yield* hermes.clarify(p, hermesRunId, { clarifyId: String(announced.data.clarify_id), response: "staging" })
          const events = yield* follower.done
          const asked = events.filter((e) => e.event === "clarify.request")
          expect(asked).toHaveLength(1)
          expect(asked[0]?.data).toMatchObject({ question: expect.any(String), choices: ["staging", "production"] })
          expect(events.at(-1)?.data.output).toContain("You chose: staging")
        }))

      it.effect("a stopped run ends with run.cancelled; a failed one with Hermes's error", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          const slow = yield* hermes.start(p, { input: "[sim:slow=5000]" })
          const fiber = yield* Effect.fork(collect(hermes.follow(p, slow.hermesRunId)))
          yield* simStatus(slow.hermesRunId, "running")
          yield* hermes.stop(p, slow.hermesRunId)
          expect((yield* Fiber.join(fiber)).at(-1)?.event).toBe("run.cancelled")
          const failing = yield* hermes.start(p, { input: "[sim:fail=out of tokens]" })
          const events = yield* collect(hermes.follow(p, failing.hermesRunId))
          expect(events.at(-1)?.data).toMatchObject({ event: "run.failed", error: "out of tokens" })
        }))

      it.effect("a run Hermes never heard of ends interrupted at once", () =>
        Effect.gen(function* () {
          const { hermes } = yield* clientAndSim
          const p = yield* defaultProfile
          const events = yield* collect(hermes.follow(p, "run_0123456789abcdef0123456789abcdef"))
          expect(events.map((e) => [e.event, e.data.error])).toEqual([["run.interrupted", GONE_ERROR]])
        }))

      it.effect("fails with the bridge's error (as the follower maps it) when the key is refused, and gives up when told to", () =>
        Effect.gen(function* () {
          const { hermes: client, sim } = yield* clientAndSim
          const hermes = bridgeHermes(client)
          const p = yield* defaultProfile
          const { hermesRunId } = yield* hermes.start(p, { input: "[sim:slow=300]" })
          const refused = yield* Effect.flip(Stream.runDrain(hermes.follow(withKey(p, "wrong"), hermesRunId)))
          expect(refused).toMatchObject({ _tag: "AgentRefused", hermesStatus: 401 })
          yield* sim.stop
          const gaveUp = yield* Effect.flip(Stream.runDrain(hermes.follow(p, hermesRunId, { giveUpAfter: "300 millis" })))
          yield* sim.start
          expect(gaveUp._tag).toBe("AgentUnavailable")
        }))
    })
  })
}

describe("follow at volume", () => {
  layer(SimulatedHermes({ generation: "new" }, opts), { excludeTestServices: true })((it) => {
    it.effect("delivers 5000 events in order", () =>
      Effect.gen(function* () {
        const { hermes } = yield* clientAndSim
        const p = yield* defaultProfile
        const { hermesRunId } = yield* hermes.start(p, { input: "[sim:events=5000]" })
        const events = yield* collect(hermes.follow(p, hermesRunId))
        expect(events).toHaveLength(5000)
        expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i))
      }))
  })
})
