/**
 * The CLI never subscribes to a run's events: Hermes 0.20 gives a second concurrent subscriber 200
 * and splits the frames between the two, so `agent-bridge inbox approve` or `doctor` opening the
 * stream would take text from the daemon's follow. Checked against the 0.20-like peer, which
 * counts every subscription.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Stream } from "effect"
import { parseArgs } from "../../src/cli/args.ts"
import { doctorRows } from "../../src/cli/doctor.ts"
import { inboxCommandLine } from "../../src/cli/inboxRuntime.ts"
import { storageLayer } from "../../src/cli/runtime.ts"
import { HermesClientForTools } from "../../src/hermes/client/HermesClientLive.ts"
import { HermesClient } from "../../src/hermes/client/HermesClient.ts"
import { Inbox } from "../../src/services/inbox/Inbox.ts"
import { InboxServices } from "../../src/daemon/teachServices.ts"
import { testConfig } from "../support/daemon.ts"
import { hermes020, KEY } from "./support/hermes020.ts"

const RUN = "run_0123456789abcdef0123456789abcdef"

describe("the CLI's Hermes client", () => {
  it.scopedLive("`inbox approve` answers Hermes without subscribing, exits 0; `doctor` does not subscribe either", () =>
    Effect.gen(function* () {
      const h = yield* hermes020
      h.runs.set("hr_1", { frames: [], status: { status: "waiting_for_approval" } })
      const config = testConfig({ hermes: { url: h.url, key: KEY } })
      const row = yield* Effect.flatMap(Inbox, (i) =>
        i.openRunApproval({
          run_id: RUN, client: "alice", agent: "hermes", hermes_run_id: "hr_1", request_id: null,
          command: "rm -rf /tmp/x", description: "delete in root path", choices: ["once", "session", "always", "deny"]
        })).pipe(Effect.provide(InboxServices.pipe(Layer.provideMerge(HermesClientForTools), Layer.provideMerge(storageLayer(config)))))
      const code = yield* Effect.promise(() => inboxCommandLine(config, parseArgs(["inbox", "approve", row.id])))
      expect(code).toBe(0)
      yield* doctorRows(config)
      expect(h.requests.filter((r) => r.path.endsWith("/approval")).map((r) => JSON.parse(r.body))).toEqual([{ choice: "once" }])
      expect(h.subscribers.size).toBe(0)
    }))

  it.scopedLive("refuses to follow or stream a run at all (a defect, never a silent subscription)", () =>
    Effect.gen(function* () {
      const h = yield* hermes020
      const config = testConfig({ hermes: { url: h.url, key: KEY } })
      const exits = yield* Effect.gen(function* () {
        const c = yield* HermesClient
        const p = yield* c.profile("hermes")
        return [yield* Effect.exit(Stream.runDrain(c.follow(p, RUN))), yield* Effect.exit(Stream.runDrain(c.events(p, RUN)))]
      }).pipe(Effect.provide(HermesClientForTools.pipe(Layer.provideMerge(storageLayer(config)))))
      for (const exit of exits) expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      expect(h.subscribers.size).toBe(0)
    }))
})
