/**
 * The A2A event stream's framing (src/edge/a2a/sse.ts) without a daemon: keep-alive comments while
 * the task is quiet, a failure mid-way as a JSON-RPC error frame (then the end), and the close
 * aborting the request's runner.
 */
import { Effect, Option, Stream } from "effect"
import { describe, expect, it } from "vitest"
import { Auth, type AuthShape } from "../../src/services/auth/Auth.ts"
import { sseFrames } from "../../src/edge/a2a/sse.ts"
import { unscripted } from "../../src/common/unscripted.ts"
import { sleep } from "../support/poll.ts"

const quietAuth = unscripted<AuthShape>("Auth")({ authenticate: () => Effect.succeed(Option.none()), changes: () => Stream.never })

const collect = (events: AsyncGenerator<unknown>, abort = new AbortController(), keepAlive = 40) =>
  Effect.runPromise(
    Stream.runCollect(sseFrames({ events, first: { n: 0 }, id: 7, abort, token: "k", client: "c", keepAlive }).pipe(Stream.provideService(Auth, quietAuth)))
  ).then((chunk) => [...chunk])

describe("the A2A event stream", () => {
  it("sends keep-alive comments while the task is quiet, and one data frame per response", async () => {
    // The task stays quiet until the stream has sent two keep-alives (the reader tells it).
    let twoSent = (): void => undefined
    const quiet = new Promise<void>((resolve) => { twoSent = resolve })
    async function* events() {
      await quiet
      yield { n: 1 }
    }
    let beats = 0
    const frames = [...await Effect.runPromise(
      Stream.runCollect(sseFrames({ events: events(), first: { n: 0 }, id: 7, abort: new AbortController(), token: "k", client: "c", keepAlive: 40 }).pipe(
        Stream.tap((f) => Effect.sync(() => { if (f === ": keep-alive\n\n" && ++beats === 2) twoSent() })),
        Stream.provideService(Auth, quietAuth)
      ))
    )]
    expect(frames[0]).toBe(`data: ${JSON.stringify({ n: 0 })}\n\n`)
    expect(frames.filter((f) => f === ": keep-alive\n\n").length).toBeGreaterThanOrEqual(2)
    expect(frames.at(-1)).toBe(`data: ${JSON.stringify({ n: 1 })}\n\n`)
  })

  it("a failure mid-way is a JSON-RPC error frame with the request's id, and the end", async () => {
    // eslint-disable-next-line require-yield
    async function* events(): AsyncGenerator<unknown> {
      throw new Error("the ledger went away")
    }
    const frames = await collect(events())
    const last = JSON.parse(frames.at(-1)!.slice("data: ".length)) as { id: number; error: { code: number; message: string } }
    expect(last.id).toBe(7)
    expect(last.error).toMatchObject({ code: -32603, message: "the ledger went away" })
  })

  it("a stream closed early aborts the runner and returns the generator", async () => {
    const abort = new AbortController()
    let returned = false
    async function* events() {
      try {
        for (let i = 1; i < 100; i++) {
          await sleep(20)
          yield { n: i }
        }
      } finally {
        returned = true
      }
    }
    const frames = await Effect.runPromise(
      Stream.runCollect(sseFrames({ events: events(), first: { n: 0 }, id: 1, abort, token: "k", client: "c" }).pipe(Stream.take(3), Stream.provideService(Auth, quietAuth)))
    )
    expect(frames.length).toBe(3)
    expect(abort.signal.aborted).toBe(true)
    expect(returned).toBe(true)
  })
})
