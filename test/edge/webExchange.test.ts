/**
 * The edge's conversions between Node's listener and the SDK's web Request/Response
 * (`edge/http/webExchange.ts`): a JSON body is handed over parsed, with a body-less request; every
 * other body (empty, not JSON, with a BOM, over the SDK's limit) is handed over as the bytes that
 * came, so the SDK answers it as it always did; JSON answers leave as one buffer, streams as a
 * stream, an empty answer with no body, and a cookie (never set by the SDK) through the platform.
 */
import { HttpServer, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import { NodeHttpServer } from "@effect/platform-node"
import { DEFAULT_MAX_REQUEST_BODY_SIZE } from "@modelcontextprotocol/server"
import { Effect, Layer, ManagedRuntime } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fromMcpResponse, toMcpRequest } from "../../src/edge/http/webExchange.ts"

/** What the SDK would have been handed, as the route saw it. */
interface Seen {
  readonly method: string
  readonly url: string
  readonly header: string | null
  readonly hasParsedBody: boolean
  readonly parsedBody: unknown
  readonly bodyBytes: number | null
  readonly bodyText: string | null
}

const describeRequest = Effect.gen(function* () {
  const req = yield* HttpServerRequest.HttpServerRequest
  const { request, parsedBody } = yield* toMcpRequest(req)
  const bytes = request.body === null ? null : new Uint8Array(yield* Effect.promise(() => request.arrayBuffer()))
  const seen: Seen = {
    method: request.method,
    url: request.url,
    header: request.headers.get("x-probe"),
    hasParsedBody: parsedBody !== undefined,
    parsedBody: parsedBody === undefined ? null : parsedBody,
    bodyBytes: bytes === null ? null : bytes.length,
    bodyText: bytes === null || bytes.length > 100 ? null : Buffer.from(bytes).toString("utf8")
  }
  return HttpServerResponse.unsafeJson(seen)
})

const openStreams: Array<ReadableStreamDefaultController<Uint8Array>> = []
let cancelled = 0

/** Answers with the web Response named by the path, through `fromMcpResponse`. */
const answers: Record<string, () => Response> = {
  "/json": () => Response.json({ jsonrpc: "2.0", id: 1, result: { ok: true } }, { status: 200, headers: { "x-probe": "json" } }),
  "/empty": () => new Response(null, { status: 202, headers: { "x-probe": "empty" } }),
  "/stream": () => {
    const encoder = new TextEncoder()
    let sent = 0
    const body = new ReadableStream<Uint8Array>({
      pull: (controller) => {
        if (sent === 3) return controller.close()
        controller.enqueue(encoder.encode(`event: message\ndata: ${sent++}\n\n`))
      }
    })
    return new Response(body, { headers: { "content-type": "text/event-stream", "x-probe": "stream" } })
  },
  // One event, then closed at once: a 2025 session's answer to one call.
  "/sse-one": () => {
    let controller!: ReadableStreamDefaultController<Uint8Array>
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
    setTimeout(() => {
      controller.enqueue(new TextEncoder().encode("event: message\ndata: {\"id\":1}\n\n"))
      controller.close()
    }, 5)
    return new Response(body, { headers: { "content-type": "text/event-stream", "x-probe": "sse-one" } })
  },
  // A first event, then the next only when the client has seen the first (a wait with progress).
  "/sse-open": () => {
    const encoder = new TextEncoder()
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(encoder.encode("event: message\ndata: first\n\n"))
        openStreams.push(controller)
      },
      cancel: () => void (cancelled += 1)
    })
    return new Response(body, { headers: { "content-type": "text/event-stream" } })
  },
  // Nothing yet (a long wait before its first keep-alive).
  "/sse-silent": () =>
    new Response(new ReadableStream<Uint8Array>({ cancel: () => void (cancelled += 1) }), { headers: { "content-type": "text/event-stream" } }),
  "/cookie": () => new Response("{}", { headers: { "content-type": "application/json", "set-cookie": "a=1; Path=/" } })
}

describe("webExchange: the edge's conversions for the SDK", () => {
  let runtime: ManagedRuntime.ManagedRuntime<never, unknown>
  let base: string
  beforeAll(async () => {
    const server = createServer()
    // Each request builds its answer afresh (a web Response is read once).
    const app = Effect.flatMap(HttpServerRequest.HttpServerRequest, (req) => {
      const path = new URL(req.url, "http://x").pathname
      const make = answers[path]
      if (path === "/request") return describeRequest
      return make === undefined ? Effect.succeed(HttpServerResponse.empty({ status: 404 })) : fromMcpResponse(make())
    })
    runtime = ManagedRuntime.make(HttpServer.serve(app).pipe(Layer.provideMerge(NodeHttpServer.layer(() => server, { host: "127.0.0.1", port: 0 }))) as Layer.Layer<never, unknown>)
    await runtime.runtime()
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterAll(async () => {
    await runtime?.dispose()
  })

  const send = async (body: string | Buffer | undefined, method = "POST") => {
    const init = { method, headers: { "content-type": "application/json", "x-probe": "here" } }
    const res = await fetch(`${base}/request`, body === undefined ? init : { ...init, body: body as unknown as string })
    return (await res.json()) as Seen
  }

  it("a JSON body is handed over parsed, and the request itself carries none", async () => {
    const seen = await send('{"jsonrpc":"2.0","id":7,"method":"ping"}')
    expect(seen).toMatchObject({ method: "POST", header: "here", hasParsedBody: true, parsedBody: { jsonrpc: "2.0", id: 7, method: "ping" }, bodyBytes: null })
    expect(seen.url).toBe(`${base}/request`)
    // JSON's own values, null and numbers included, count as parsed.
    expect(await send("null")).toMatchObject({ hasParsedBody: true, parsedBody: null, bodyBytes: null })
    expect(await send("[1,2]")).toMatchObject({ hasParsedBody: true, parsedBody: [1, 2], bodyBytes: null })
  })

  it("bodies the SDK must judge itself are handed over as the bytes that came", async () => {
    for (const body of ["", "{not json", '{"a":1} trailing']) {
      expect(await send(body)).toMatchObject({ hasParsedBody: false, bodyBytes: Buffer.byteLength(body), bodyText: body })
    }
    // A BOM: the SDK's decoder drops it and this one would not, so the SDK reads those bytes.
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}')])
    expect(await send(bom)).toMatchObject({ hasParsedBody: false, bodyBytes: bom.length })
  })

  it("a body over the SDK's limit is handed over cut just past it, for the SDK's own 413", async () => {
    const over = Buffer.alloc(DEFAULT_MAX_REQUEST_BODY_SIZE + 100_000, "x")
    const seen = await send(over)
    expect(seen.hasParsedBody).toBe(false)
    expect(seen.bodyBytes).toBeGreaterThan(DEFAULT_MAX_REQUEST_BODY_SIZE)
    expect(seen.bodyBytes).toBeLessThan(over.length)
  })

  it("a GET has no body to read", async () => {
    expect(await send(undefined, "GET")).toMatchObject({ method: "GET", hasParsedBody: false, bodyBytes: null, header: "here" })
  })

  it("answers: JSON in one buffer with its length, no body as none, a stream as it comes, a cookie kept", async () => {
    const json = await fetch(`${base}/json`)
    expect(json.status).toBe(200)
    expect(json.headers.get("x-probe")).toBe("json")
    const text = await json.text()
    expect(json.headers.get("content-length")).toBe(String(Buffer.byteLength(text)))
    expect(JSON.parse(text)).toEqual({ jsonrpc: "2.0", id: 1, result: { ok: true } })

    const empty = await fetch(`${base}/empty`)
    expect(empty.status).toBe(202)
    expect(empty.headers.get("x-probe")).toBe("empty")
    expect(await empty.text()).toBe("")

    const stream = await fetch(`${base}/stream`)
    expect(stream.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(stream.headers.get("x-probe")).toBe("stream")
    expect(await stream.text()).toBe("event: message\ndata: 0\n\nevent: message\ndata: 1\n\nevent: message\ndata: 2\n\n")

    // A stream that has ended by the time it is read leaves as one buffer, with its length.
    const one = await fetch(`${base}/sse-one`)
    expect(one.headers.get("content-type")).toMatch(/^text\/event-stream/)
    expect(one.headers.get("x-probe")).toBe("sse-one")
    const oneText = await one.text()
    expect(oneText).toBe('event: message\ndata: {"id":1}\n\n')
    expect(one.headers.get("content-length")).toBe(String(Buffer.byteLength(oneText)))

    const cookie = await fetch(`${base}/cookie`)
    expect(cookie.headers.get("set-cookie")).toBe("a=1; Path=/")
  })

  it("a stream still open is sent as it comes: its first event reaches the client before the stream ends", async () => {
    const res = await fetch(`${base}/sse-open`)
    expect(res.headers.get("content-length")).toBeNull()
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let seen = ""
    // Bounded: the first event is there long before this gives up.
    for (let i = 0; i < 50 && !seen.includes("first"); i++) {
      const { value, done } = await reader.read()
      if (done) break
      seen += decoder.decode(value, { stream: true })
    }
    expect(seen).toBe("event: message\ndata: first\n\n")
    const controller = openStreams.shift()!
    controller.enqueue(new TextEncoder().encode("event: message\ndata: second\n\n"))
    controller.close()
    let rest = ""
    for (let i = 0; i < 50; i++) {
      const { value, done } = await reader.read()
      if (done) break
      rest += decoder.decode(value, { stream: true })
    }
    expect(rest).toBe("event: message\ndata: second\n\n")
  })

  it("a client that goes away cancels the stream: while its first bytes are awaited, and while it is piped", async () => {
    // Bounded wait for the server to notice a closed connection.
    const cancelledOnce = async (before: number) => {
      for (let i = 0; i < 500 && cancelled === before; i++) await new Promise((r) => setTimeout(r, 10))
      expect(cancelled).toBe(before + 1)
    }
    const silent = new AbortController()
    const before = cancelled
    const pending = fetch(`${base}/sse-silent`, { signal: silent.signal }).catch((e: unknown) => e)
    setTimeout(() => silent.abort(), 200)
    expect(await pending).toBeInstanceOf(Error)
    await cancelledOnce(before)

    const open = new AbortController()
    const res = await fetch(`${base}/sse-open`, { signal: open.signal })
    await res.body!.getReader().read()
    const piped = cancelled
    open.abort()
    await cancelledOnce(piped)
    openStreams.length = 0
  })
})
