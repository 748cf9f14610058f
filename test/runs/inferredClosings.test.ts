/** The steps a run recovered from Hermes's status missed are closed before its synthesised end, and only then. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { type HermesEvent, HermesEventData, makeEvent } from "../../src/domain/runs/hermesEvents.ts"
import type { LedgerShape, StoredEvent } from "../../src/services/runs/Ledger.ts"
import { withInferredClosings } from "../../src/services/runs/inferredClosings.ts"
import { unscripted } from "../../src/common/unscripted.ts"

const ev = (event: string, data: Record<string, unknown> = {}): HermesEvent =>
  makeEvent(null, Schema.decodeUnknownSync(HermesEventData)({ event, run_id: "run_h", timestamp: 1, ...data }))
const stored = (type: string, data: Record<string, unknown> = {}, seq = 1): StoredEvent => ({ seq, type, at: 0, data })
const ledgerOf = (events: ReadonlyArray<StoredEvent>) => unscripted<LedgerShape>("Ledger")({ eventsAfter: () => Effect.succeed(events) })

describe("inferred closings", () => {
  it.effect("a synthesised end closes the tools and approvals the ledger holds open, innermost last; what is known is kept", () =>
    Effect.gen(function* () {
      const ledger = ledgerOf([
        stored("tool.started", { tool: "read_file" }), stored("tool.completed", { tool: "read_file" }),
        stored("tool.started", { tool: "terminal" }), stored("approval.request", { command: "rm" })
      ])
      const out = yield* withInferredClosings(ledger, "r", [ev("run.completed", { output: "x", synthetic: true })])
      expect(out.map((e) => [e.event, e.data["synthetic"], e.data["unknown"]])).toEqual([
        ["approval.responded", true, ["choice"]],
        ["tool.completed", true, ["duration", "error"]],
        ["run.completed", true, undefined]
      ])
      expect(out[0]!.data).not.toHaveProperty("request_id")
      expect(out[1]!.data["tool"]).toBe("terminal")
    }))

  it.effect("a streamed end, or nothing open, leaves the batch as it came", () =>
    Effect.gen(function* () {
      const open = ledgerOf([stored("tool.started", { tool: "terminal" })])
      const streamed = [ev("run.completed", { output: "x" })]
      expect(yield* withInferredClosings(open, "r", streamed)).toBe(streamed)
      const closed = ledgerOf([stored("tool.started", { tool: "t" }), stored("approval.request", { request_id: "a" }), stored("approval.responded", { request_id: "a" }), stored("tool.completed", { tool: "t" })])
      const synthesised = [ev("run.failed", { error: "e", synthetic: true })]
      expect(yield* withInferredClosings(closed, "r", synthesised)).toBe(synthesised)
    }))

  it.effect("a response earlier in the batch counts; the missed tail of the text stays after the closings", () =>
    Effect.gen(function* () {
      const ledger = ledgerOf([stored("tool.started", { tool: "terminal" }), stored("approval.request", { request_id: "a" })])
      const out = yield* withInferredClosings(ledger, "r", [
        ev("approval.responded", { request_id: "a", synthetic: true }),
        ev("message.delta", { delta: "tail", synthetic: true }),
        ev("run.completed", { synthetic: true })
      ])
      expect(out.map((e) => e.event)).toEqual(["approval.responded", "tool.completed", "message.delta", "run.completed"])
    }))
})
