/**
 * An event stream that goes silent (no frame, no keepalive) for longer than the client's stream idle
 * limit is a dead link: it fails with `HermesTimeout` (undici's body timeout on the events route's
 * dispatcher, streamDispatcher.ts), so the follow reconnects. One that carries keepalives is never
 * cut, however long it goes without an event. A raw `node:http` server on 127.0.0.1 plays Hermes.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Option, Redacted, Stream } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { HermesClient, namedProfile } from "../../src/hermes/client/HermesClient.ts"
import { HermesClientWith } from "../../src/hermes/client/HermesClientLive.ts"

const frame = (event: string, extra: Record<string, unknown> = {}) => `data: ${JSON.stringify({ event, run_id: "r1", timestamp: 1, ...extra })}\n\n`

/** A Hermes whose events route sends one delta, then keepalives every `keepaliveMs` for `forMs` (or nothing, when 0), then the end. */
const fakeHermes = (keepaliveMs: number, forMs: number) =>
  Effect.acquireRelease(
    Effect.async<http.Server & { url: string }>((resume) => {
      const server = http.createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.write(frame("message.delta", { delta: "hi" }))
        if (keepaliveMs === 0) return // silent from here on: a dead link
        const beat = setInterval(() => res.write(": keepalive\n\n"), keepaliveMs)
        setTimeout(() => {
          clearInterval(beat)
          res.end(frame("run.completed", { output: "hi" }))
        }, forMs)
        res.on("close", () => clearInterval(beat))
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(Object.assign(server, { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }))))
    }),
    (server) => Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
  )

const events = (url: string) =>
  Effect.gen(function* () {
    const p = namedProfile("default", url, Option.some(Redacted.make("k-idle")))
    const hermes = yield* HermesClient
    return yield* Effect.either(Stream.runCollect(hermes.events(p, "r1")))
  }).pipe(Effect.provide(HermesClientWith([namedProfile("default", url, Option.some(Redacted.make("k-idle")))], { streamIdleTimeout: "1 second" })))

describe("the event stream's idle limit", () => {
  it.scopedLive("a stream silent past the limit fails with HermesTimeout", () =>
    Effect.gen(function* () {
      const server = yield* fakeHermes(0, 0)
      const got = yield* events(server.url)
      expect(Either.isLeft(got)).toBe(true)
      if (Either.isLeft(got)) expect(got.left).toMatchObject({ _tag: "HermesTimeout", afterMs: 1000, route: "GET /v1/runs/{id}/events" })
    }), 30_000)

  it.scopedLive("keepalives keep a stream with no event open past the limit; it ends with its terminal event", () =>
    Effect.gen(function* () {
      const server = yield* fakeHermes(250, 2_500)
      const got = yield* events(server.url)
      expect(Either.isRight(got)).toBe(true)
      if (Either.isRight(got)) expect(Chunk.toReadonlyArray(got.right).map((e) => e.event)).toEqual(["message.delta", "run.completed"])
    }), 30_000)
})
