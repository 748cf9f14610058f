/** Incident ids: one format, and the cause logged under the id the caller gets. */
import { Cause, Effect, Exit, HashMap, List, Logger } from "effect"
import { describe, expect, it } from "vitest"
import { failWithIncident, logIncident, newIncident } from "../../src/common/incident.ts"

const capture = () => {
  const logged: Array<{ message: unknown; level: string; annotations: Record<string, unknown> }> = []
  const logger = Logger.make(({ message, logLevel, annotations }) => {
    logged.push({ message: List.isList(message) ? List.toArray(message) : message, level: logLevel.label, annotations: Object.fromEntries(HashMap.toEntries(annotations)) })
  })
  return { logged, layer: Logger.replace(Logger.defaultLogger, logger) }
}

describe("incident ids", () => {
  it("are inc_ and 16 hex digits, fresh each time", () => {
    const ids = Array.from({ length: 50 }, newIncident)
    for (const id of ids) expect(id).toMatch(/^inc_[0-9a-f]{16}$/)
    expect(new Set(ids).size).toBe(ids.length)
  })

  it("logIncident logs the cause at error level under the id the Internal carries", async () => {
    const { logged, layer } = capture()
    const internal = await Effect.runPromise(logIncident("store: read failed", new Error("disk on fire")).pipe(Effect.provide(layer)))
    expect(internal._tag).toBe("Internal")
    expect(internal.incident).toMatch(/^inc_[0-9a-f]{16}$/)
    expect(logged).toHaveLength(1)
    expect(logged[0]!.level).toBe("ERROR")
    expect(logged[0]!.annotations["incident"]).toBe(internal.incident)
    expect(JSON.stringify(logged[0]!.message)).toContain("store: read failed")
    expect(internal.message).toContain(internal.incident)
    expect(internal.message).not.toContain("disk on fire")
  })

  it("failWithIncident fails with that Internal, and two failures get two ids", async () => {
    const { logged, layer } = capture()
    const run = () => Effect.runPromiseExit(failWithIncident("x failed", "cause").pipe(Effect.provide(layer)))
    const [a, b] = [await run(), await run()]
    const incidents = [a, b].map((exit) => {
      expect(Exit.isFailure(exit)).toBe(true)
      const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
      return failure?._tag === "Some" ? failure.value.incident : ""
    })
    expect(incidents[0]).not.toBe(incidents[1])
    expect(logged.map((l) => l.annotations["incident"])).toEqual(incidents)
  })
})
