/**
 * The samples generated from the format rules (`ruleCorpus.ts`), streamed by a run in 5-character
 * deltas with another event (a steer, tool events, reasoning) after every delta, read on every path
 * (status, a wait's `events_tail`, events pages of 100 live and of 1, 3 and 100 after the end):
 * none shows. Every third rule (the named gaps of `ruleFormats.test.ts` left out), 25 to a run, to
 * keep the test short; `ruleFormats.test.ts` cuts every rule's sample at every offset.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { FORMAT_RULES } from "../../src/domain/redact/rules/gitleaks/gitleaks.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, harness } from "../runs/support/harness.ts"
import { leakFinder } from "./corpus.ts"
import { ruleSample, type RuleSample } from "./ruleCorpus.ts"
import { turnLoopEvery } from "../support/loopTurn.ts"

const alice = as("alice")
const NOT_MASKED = new Set(["gcp-application-default-credentials", "gcp-service-account"])
const SAMPLES = FORMAT_RULES.flatMap((rule) => {
  const s = ruleSample(rule)
  return s === undefined || NOT_MASKED.has(s.rule) ? [] : [s]
}).filter((_, i) => i % 3 === 0)
const PER_RUN = 25
const batches: Array<ReadonlyArray<RuleSample>> = []
for (let i = 0; i < SAMPLES.length; i += PER_RUN) batches.push(SAMPLES.slice(i, i + PER_RUN))

const BETWEEN: ReadonlyArray<readonly [string, Record<string, unknown>]> = [
  ["run.steered", { accepted: true }],
  ["tool.started", { tool: "terminal", preview: "ls -la" }],
  ["tool.completed", { tool: "terminal", duration: 0.2, error: false }],
  ["reasoning.available", { text: "thinking about it" }]
]

describe("rule samples cut by other events", () => {
  it.live(`none of ${SAMPLES.length} shows on any read path, live or finished`, () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: batches.length + 1 })
      const problems: Array<string> = []
      // The in-memory run settles through promises alone: the loop turns now and then (loopGuard.ts).
      const turn = turnLoopEvery()
      for (const [n, batch] of batches.entries()) {
        const leaks = batch.map((s) => [s.rule, leakFinder(s.core)] as const)
        const look = (what: string, value: unknown) => {
          const text = JSON.stringify(value)
          for (const [rule, leak] of leaks) {
            const found = leak(text)
            if (found !== undefined) problems.push(`${rule}, ${what}: leaks ${JSON.stringify(found)}`)
          }
        }
        const streamed = batch.map((s) => `next: ${s.sample}\n`).join("") + "done."
        const deltas = streamed.match(/[\s\S]{1,5}/g)!
        const view = yield* alice(h.runs.start({ agent: "hermes", input: `batch ${n}` }))
        const hid = [...h.hermes.runs.keys()][n]!
        for (const [i, d] of deltas.entries()) {
          yield* h.hermes.emit(hid, "message.delta", { delta: d })
          const [event, fields] = BETWEEN[i % BETWEEN.length]!
          yield* h.hermes.emit(hid, event, fields)
          yield* turn
        }
        const readAll = (label: string, lastSeq: number, sizes: ReadonlyArray<number>) =>
          Effect.gen(function* () {
            look(`${label} status`, yield* alice(h.runs.status(view.run_id, 0)))
            look(`${label} wait`, yield* alice(h.runs.wait(view.run_id, 0)))
            for (const size of sizes) {
              for (let since = 0; since < lastSeq; since += size) {
                look(`${label} events(${since}, ${size})`, yield* alice(h.runs.events(view.run_id, since, size)))
                yield* turn
              }
            }
          })
        const live = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output !== null && v.output.endsWith("done."), "all text")
        yield* readAll("live", live.last_seq, [100])
        yield* h.hermes.complete(hid)
        const done = yield* alice(h.runs.wait(view.run_id, 30))
        expect(done.status).toBe("completed")
        yield* readAll("completed", done.last_seq, [1, 3, 100])
      }
      expect(problems.slice(0, 20)).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 300_000)
})
