/**
 * A run's streamed text is one text, whatever other events the ledger stores between its pieces
 * (a steer, tool events, an approval, reasoning): a secret cut by one of them is still masked on
 * every read path (status, events pages of every size, a wait's events_tail, list), live and after
 * the end. Every layout: the event after each 3-character delta of the secret, and an event after
 * every delta.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Caller } from "../../src/request/Caller.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, harness } from "../runs/support/harness.ts"
import { leakFinder } from "./corpus.ts"

const alice = as("alice")
const admin = as(Caller.admin)

const token = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
const password = "Kd93jfLq0Pz7Wm2xR5"
const streamed = "xxxxxxxxxxxxxxxxxxxxxxxx " + token + " and DB_PASSWORD=" + password + " done."
const deltas = streamed.match(/[\s\S]{1,3}/g)!
const leaks = [leakFinder(token.slice(4)), leakFinder(password)]
const leak = (s: string) => leaks.map((f) => f(s)).find((x) => x !== undefined)

/** Events a Hermes run records between text deltas. */
const BETWEEN: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["run.steered", { accepted: true }],
  ["tool.started", { tool: "terminal", preview: "ls -la" }],
  ["tool.completed", { tool: "terminal", duration: 0.2, error: false }],
  ["reasoning.available", { text: "thinking about it" }],
  ["approval.request", { request_id: "ap1", command: "rm -rf /tmp/x", description: "delete in root path", choices: ["once", "deny"] }]
]

/** Layout: after which deltas (indexes) an event is inserted. */
const layouts: ReadonlyArray<{ readonly label: string; readonly after: ReadonlySet<number> }> = [
  ...deltas.map((_, i) => i).filter((i) => i < deltas.length - 1).map((i) => ({ label: `after delta ${i}`, after: new Set([i]) })),
  { label: "after every delta", after: new Set(deltas.map((_, i) => i)) }
]

describe("a secret cut by other events", () => {
  it.live(`is masked on every read path in each of ${layouts.length} layouts, live and finished`, () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: layouts.length + 1 })
      const problems: Array<string> = []
      const look = (label: string, what: string, value: unknown) => {
        const found = leak(JSON.stringify(value))
        if (found !== undefined) problems.push(`${label}, ${what}: leaks ${JSON.stringify(found)}`)
      }
      const readAll = (label: string, runId: string, lastSeq: number) =>
        Effect.gen(function* () {
          look(label, "status", yield* alice(h.runs.status(runId, 0)))
          look(label, "wait", yield* alice(h.runs.wait(runId, 0)))
          look(label, "list", yield* admin(h.runs.list({ limit: 100 })))
          for (const size of [1, 2, 3, 5, 100]) {
            for (let since = 0; since < lastSeq; since += size) {
              look(label, `events(${since}, ${size})`, yield* alice(h.runs.events(runId, since, size)))
            }
          }
        })
      for (const [n, layout] of layouts.entries()) {
        const view = yield* alice(h.runs.start({ agent: "hermes", input: `layout ${n}` }))
        const hid = [...h.hermes.runs.keys()][n]!
        let between = 0
        for (const [i, d] of deltas.entries()) {
          yield* h.hermes.emit(hid, "message.delta", { delta: d })
          if (!layout.after.has(i)) continue
          const [event, fields] = BETWEEN[between++ % BETWEEN.length]!
          yield* h.hermes.emit(hid, event, fields)
          if (event === "approval.request") yield* h.hermes.emit(hid, "approval.responded", { choice: "once", resolved: 1, request_id: "ap1" })
        }
        const live = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output === null ? false : v.output.endsWith("done."), "all text")
        yield* readAll(`${layout.label} (live)`, view.run_id, live.last_seq)
        yield* h.hermes.complete(hid)
        const done = yield* alice(h.runs.wait(view.run_id, 30))
        expect(done.status).toBe("completed")
        yield* readAll(`${layout.label} (completed)`, view.run_id, done.last_seq)
      }
      expect(problems.slice(0, 20)).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 120_000)
})
