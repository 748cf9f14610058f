/**
 * A connection's body read straight from its Node readable (`sseBody.ts`): every way the loop ends
 * (the body's end, `onEvent` saying stop, a failure of the body, an interruption) leaves the body
 * destroyed, and the platform's undici client gives the raw body the follow reads
 * (`responseBody.ts`), not the adapted fallback.
 */
import { describe, expect, it } from "@effect/vitest"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Effect, Exit, Fiber } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { PassThrough } from "node:stream"
import { readBodyEvents } from "../../src/hermes/client/sseBody.ts"
import { responseBody, undiciBody } from "../../src/hermes/client/responseBody.ts"
import { bodyOf, broke } from "./support/bodyEvents.ts"

const frame = (delta: string) => new TextEncoder().encode(`data: {"event": "message.delta", "delta": "${delta}"}\n\n`)

describe("an event stream's body read straight", () => {
  it.effect("onEvent answering false stops the reading and destroys the body", () =>
    Effect.gen(function* () {
      const body = bodyOf([frame("a"), frame("b"), frame("c")])
      const seen: Array<string> = []
      yield* readBodyEvents(body, broke, (e) => Effect.sync(() => seen.push(String(e.data["delta"])) < 2))
      expect(seen).toEqual(["a", "b"])
      expect(body.destroyed).toBe(true)
    }))

  it.live("a body that fails mid-stream fails with its cause, after the events before it", () =>
    Effect.gen(function* () {
      const body = new PassThrough()
      const seen: Array<string> = []
      const fiber = yield* Effect.fork(readBodyEvents(body, broke, (e) => Effect.sync(() => seen.push(String(e.data["delta"])) > 0)))
      body.write(frame("first"))
      yield* Effect.sleep("20 millis")
      body.destroy(Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }))
      const exit = yield* Fiber.await(fiber)
      expect(seen).toEqual(["first"])
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("socket hang up")
    }))

  it.live("a body that fails while onEvent works (no wait listening) fails the read, and nothing is thrown", () =>
    Effect.gen(function* () {
      const body = new PassThrough()
      const exit = yield* readBodyEvents(body, broke, () =>
        Effect.sync(() => body.destroy(new Error("reset while the ledger wrote"))).pipe(Effect.zipRight(Effect.sleep("20 millis")), Effect.as(true))
      ).pipe(
        Effect.fork,
        Effect.tap(() => Effect.sync(() => body.write(frame("one")))),
        Effect.flatMap(Fiber.await)
      )
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("reset while the ledger wrote")
      // The body's own listener outlives the read by a tick, then goes.
      yield* Effect.sleep("20 millis")
      expect(body.listenerCount("error")).toBe(0)
    }))

  it.live("a body closed without an error before its end is a failure, not an end", () =>
    Effect.gen(function* () {
      const body = new PassThrough()
      const fiber = yield* Effect.fork(readBodyEvents(body, broke, () => Effect.succeed(true)))
      yield* Effect.sleep("20 millis")
      body.destroy()
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && JSON.stringify(exit.cause)).toContain("closed before its end")
    }))

  it.live("an interruption while waiting for bytes removes the listeners and destroys the body", () =>
    Effect.gen(function* () {
      const body = new PassThrough()
      const fiber = yield* Effect.fork(readBodyEvents(body, broke, () => Effect.succeed(true)))
      yield* Effect.sleep("20 millis")
      expect(body.listenerCount("readable")).toBe(1)
      yield* Fiber.interrupt(fiber)
      expect(body.listenerCount("readable")).toBe(0)
      expect(body.listenerCount("end")).toBe(0)
      expect(body.destroyed).toBe(true)
    }))

  it.live("the platform's undici client gives the raw body, which reads as the adapted one does", () =>
    Effect.gen(function* () {
      const server = http.createServer((_req, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" })
        res.end(`${new TextDecoder().decode(frame("x"))}: stream closed\n\n`)
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
      const client = NodeHttpClient.makeUndici(yield* NodeHttpClient.Dispatcher)
      const read = (raw: boolean) =>
        Effect.gen(function* () {
          const response = yield* client.get(url)
          const body = raw ? responseBody(response) : responseBody({ stream: response.stream } as typeof response)
          if (raw) expect(undiciBody(response)).toBe(body)
          const seen: Array<string> = []
          yield* readBodyEvents(body, broke, (e) => Effect.sync(() => seen.push(String(e.data["delta"])) > 0))
          return seen
        })
      expect(yield* read(true)).toEqual(["x"])
      expect(yield* read(false)).toEqual(["x"])
    }).pipe(Effect.scoped, Effect.provide(NodeHttpClient.dispatcherLayer)))
})
