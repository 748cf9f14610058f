/**
 * The SSE edge decodes every frame once with the event vocabulary's Schema: Hermes 0.20's own
 * frames read as what they are, other events pass through untouched, and a known event with a
 * field of the wrong type is dropped with a warning instead of reaching the reducer.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, HashMap, List, Logger } from "effect"
import { fieldsOf, isKnown } from "../../src/domain/runs/hermesEvents.ts"
import { readBodyEvents } from "../../src/hermes/client/sseBody.ts"
import { bodyEvents, bodyOf, broke } from "./support/bodyEvents.ts"

const sse = (...frames: ReadonlyArray<string>) =>
  [new TextEncoder().encode(frames.map((f) => `data: ${f}\n\n`).join("") + ": stream closed\n\n")]

describe("the SSE edge", () => {
  it.effect("reads Hermes 0.20's frames: an approval without request_id, tool events kept whole", () =>
    Effect.gen(function* () {
      const events = yield* bodyEvents(sse(
        `{"event": "tool.started", "run_id": "run_x", "timestamp": 1.0, "tool": "terminal", "preview": "echo hi"}`,
        `{"command": "rm -rf /", "pattern_key": "delete in root path", "pattern_keys": ["delete in root path"], "description": "delete in root path", "allow_permanent": true, "allow_session": true, "event": "approval.request", "run_id": "run_x", "timestamp": 2.0, "choices": ["once", "session", "always", "deny"]}`,
        `{"event": "approval.responded", "run_id": "run_x", "timestamp": 3.0, "choice": "once", "resolved": 1}`,
        `{"event": "run.completed", "run_id": "run_x", "timestamp": 4.0, "output": "hi \\ud83d\\ude00", "usage": {"input_tokens": 1, "output_tokens": 2, "total_tokens": 3}}`
      ))
      expect(events.map((e) => e.event)).toEqual(["tool.started", "approval.request", "approval.responded", "run.completed"])
      expect(isKnown(events[0]!.data)).toBe(false)
      expect(events[0]!.data).toMatchObject({ tool: "terminal", preview: "echo hi", run_id: "run_x" })
      const request = fieldsOf(events[1]!, "approval.request")
      expect(request?.request_id).toBeUndefined()
      expect(request?.pattern_key).toBe("delete in root path")
      expect(fieldsOf(events[3]!, "run.completed")?.output).toBe("hi \u{1F600}")
    }))

  it.effect("a known event with a field of the wrong type is dropped, with one warning", () =>
    Effect.gen(function* () {
      const warnings: Array<string> = []
      const logger = Logger.make(({ logLevel, message, annotations }) => {
        if (logLevel.label === "WARN") {
          const text = List.isList(message) ? List.toArray(message as List.List<unknown>).join(" ") : Array.isArray(message) ? message.join(" ") : String(message)
          warnings.push(`${text} ${String(HashMap.unsafeGet(annotations, "route"))}`)
        }
      })
      const events = yield* bodyEvents(sse(
        `{"event": "message.delta", "delta": 5}`,
        `{"event": "message.delta", "delta": "ok"}`
      )).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger)))
      expect(events.map((e) => fieldsOf(e, "message.delta")?.delta)).toEqual(["ok"])
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toContain("cannot read")
      expect(warnings[0]).toContain("GET /v1/runs/{id}/events")
    }))

  it.effect("a frame past the parser's 10 MiB limit ends the stream with a defect, after the frames before it", () =>
    Effect.gen(function* () {
      const encode = (s: string) => new TextEncoder().encode(s)
      const seen: Array<string> = []
      const huge = `data: {"event": "message.delta", "delta": "${"x".repeat(256 * 1024)}`
      const chunks = [encode(`data: {"event": "message.delta", "delta": "before"}\n\n`), ...Array.from({ length: 41 }, () => encode(huge)), encode("\n\n")]
      const exit = yield* readBodyEvents(bodyOf(chunks), broke, (e) => Effect.sync(() => seen.push(String(fieldsOf(e, "message.delta")?.delta)) > 0)).pipe(Effect.exit)
      expect(seen).toEqual(["before"])
      expect(exit._tag).toBe("Failure")
      expect(exit._tag === "Failure" && Cause.isDie(exit.cause)).toBe(true)
    }))

  it.effect("a CR at the very end of the bytes is a line end: the frame it completes is read", () =>
    Effect.gen(function* () {
      const events = yield* bodyEvents([new TextEncoder().encode(`data: {"event": "message.delta", "delta": "last"}\r\r`)])
      expect(events.map((e) => fieldsOf(e, "message.delta")?.delta)).toEqual(["last"])
    }))
})
