/**
 * The edge's one runner (src/edge/runner.ts): a request's program as the caller, cancelled by the
 * request's AbortSignal, and its end told as a face answers it.
 */
import { Deferred, Effect, Either, Exit, FiberId, Runtime } from "effect"
import { describe, expect, it } from "vitest"
import { Redactor, RedactorWith } from "../../src/common/Redactor.ts"
import { RunNotFound } from "../../src/domain/errors.ts"
import { asRequest, runEither, runExit, settle } from "../../src/edge/runner.ts"
import { Caller } from "../../src/request/Caller.ts"
import { Progress } from "../../src/request/Progress.ts"

const SECRET = "sk-live-0123456789abcdef0123456789abcdef"
const runtime = Effect.runSync(Effect.scoped(Effect.runtime<Redactor>().pipe(Effect.provide(RedactorWith([SECRET])))))
const redactor = Runtime.runSync(runtime)(Redactor)

describe("the edge runner", () => {
  it("runs as the request's caller, without progress unless given", async () => {
    const seen = await runExit(runtime, asRequest(Effect.all([Caller, Progress]), { caller: Caller.client("carol") }))
    expect(Exit.isSuccess(seen) && seen.value[0].client).toBe("carol")
    expect(Exit.isSuccess(seen) && seen.value[1].enabled).toBe(false)
  })

  it("the request's signal interrupts the program in flight, and one aborted before never runs it", async () => {
    const started = Effect.runSync(Deferred.make<void>())
    const abort = new AbortController()
    const running = runExit(runtime, Effect.zipRight(Deferred.succeed(started, undefined), Effect.never), abort.signal)
    await Effect.runPromise(Deferred.await(started))
    abort.abort()
    const exit = await running
    expect(Exit.isInterrupted(exit)).toBe(true)
    let ran = false
    const early = await runExit(runtime, Effect.sync(() => { ran = true }), AbortSignal.abort())
    expect(Exit.isFailure(early)).toBe(true)
    expect(ran).toBe(false)
  })

  it("runEither: a typed failure is Left; a defect rejects", async () => {
    expect(await runEither(runtime, Effect.fail("no"))).toEqual(Either.left("no"))
    await expect(runEither(runtime, Effect.dieMessage("boom"))).rejects.toThrow(/boom/)
  })

  it("settle: a bridge error with its text redacted, a face's own error as it is, an interruption, an incident for the rest", async () => {
    const refused = await settle(runtime, redactor, Exit.fail(new RunNotFound({ message: `no run ${SECRET}` })), "t")
    expect(refused._tag).toBe("Refused")
    expect(refused._tag === "Refused" && refused.text).not.toContain(SECRET)
    const mine = new Error("the face's own")
    expect(await settle(runtime, redactor, Exit.die(mine), "t", (e) => e === mine)).toEqual({ _tag: "Own", error: mine })
    expect(await settle(runtime, redactor, Exit.interrupt(FiberId.none), "t")).toEqual({ _tag: "Interrupted" })
    const incident = await settle(runtime, redactor, Exit.die(new Error("unexpected")), "t")
    expect(incident._tag === "Incident" && incident.incident).toMatch(/^inc_[0-9a-f]{16}$/)
  })
})
