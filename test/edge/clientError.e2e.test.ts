/**
 * Bytes node's HTTP parser refuses (not HTTP at all, a malformed request line or header, headers
 * over the limit, a request that times out) are answered with the daemon's JSON error body and a
 * closed connection, never node's bare status line; the daemon keeps serving afterwards. The
 * listener itself is checked on a plain node server too, where the parser's timeouts can be short.
 */
import * as http from "node:http"
import * as net from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { answerClientErrorsWithJson, clientErrorReply, clientErrorResponse } from "../../src/edge/http/clientError.ts"
import { startDaemon, testConfig, type TestDaemon } from "../support/daemon.ts"
import { HermesClientTest } from "../../src/hermes/client/HermesClientTest.ts"

interface RawReply {
  readonly statusLine: string
  readonly headers: Record<string, string>
  readonly body: string
}

/** Writes `bytes` on a fresh connection and reads everything until the server closes it. */
const exchange = (port: number, bytes: string | Uint8Array): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port })
    const chunks: Array<Buffer> = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`connection still open; got ${JSON.stringify(Buffer.concat(chunks).toString("latin1").slice(0, 200))}`))
    }, 10_000)
    socket.on("data", (c: Buffer) => chunks.push(c))
    socket.on("close", () => {
      clearTimeout(timer)
      resolve(Buffer.concat(chunks).toString("utf8"))
    })
    socket.on("error", () => undefined)
    socket.write(bytes)
  })

const parse = (raw: string): RawReply => {
  const split = raw.indexOf("\r\n\r\n")
  const [statusLine = "", ...lines] = raw.slice(0, split === -1 ? raw.length : split).split("\r\n")
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(":")).toLowerCase(), l.slice(l.indexOf(":") + 1).trim()]))
  return { statusLine, headers, body: split === -1 ? "" : raw.slice(split + 4) }
}

/** The reply is one complete JSON error response with this status and code, and nothing else. */
const expectJsonError = (raw: string, status: number, code: string) => {
  const r = parse(raw)
  expect(r.statusLine).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `))
  expect(r.headers["content-type"]).toBe("application/json")
  expect(r.headers["connection"]).toBe("close")
  expect(Number(r.headers["content-length"])).toBe(Buffer.byteLength(r.body))
  const body = JSON.parse(r.body) as { error: { code: string; message: string } }
  expect(body.error.code).toBe(code)
  expect(body.error.message.length).toBeGreaterThan(10)
  return body.error.message
}

const portOf = (url: string) => Number(new URL(url).port)

describe("bytes that are not HTTP, at the daemon", () => {
  let daemon: TestDaemon
  let port: number
  beforeAll(async () => {
    daemon = await startDaemon(testConfig(), HermesClientTest())
    port = portOf(daemon.url)
  })
  afterAll(async () => daemon?.close())

  const healthy = async () => (await fetch(`${daemon.url}/healthz`)).status

  it("garbage bytes get a 400 JSON error naming the problem", async () => {
    const message = expectJsonError(await exchange(port, "GARBAGE\r\n\r\n"), 400, "http.bad_request")
    expect(message).toContain("HTTP method")
    expectJsonError(await exchange(port, Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0xfc, 0x03, 0x03])), 400, "http.bad_request")
    expect(await healthy()).toBe(200)
  })

  it("an invalid request line, version or header gets a 400 JSON error that echoes nothing", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      ["GET /a b<script> HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", "HTTP version"],
      ["GET /healthz HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n", "HTTP version"],
      ["GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad<script> Header\r\n\r\n", "header name"],
      ["POST /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", "Content-Length"]
    ]
    for (const [bytes, named] of cases) {
      const raw = await exchange(port, bytes)
      expect(expectJsonError(raw, 400, "http.bad_request")).toContain(named)
      expect(raw).not.toContain("<script>")
    }
    expect(await healthy()).toBe(200)
  })

  it("headers over node's limit get 431, and the whole answer arrives although the client is still sending", async () => {
    const raw = await exchange(port, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"x".repeat(200_000)}\r\n\r\n`)
    expect(expectJsonError(raw, 431, "http.headers_too_large")).toContain(String(http.maxHeaderSize))
    expect(await healthy()).toBe(200)
  })

  it("garbage pipelined after a request on the same connection still ends it with the JSON error", async () => {
    // The parser fails while the first request is in flight; as with node's own handler, that
    // request may go unanswered, but the connection never ends in a bare status line or a hang.
    const raw = await exchange(port, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\nGARBAGE\r\n\r\n")
    const refusal = raw.indexOf("HTTP/1.1 400 ")
    expect(refusal).toBeGreaterThanOrEqual(0)
    expectJsonError(raw.slice(refusal), 400, "http.bad_request")
    expect(await healthy()).toBe(200)
  })

  it("many garbage connections at once are all answered, and the daemon still serves", async () => {
    const replies = await Promise.all(Array.from({ length: 40 }, (_, i) => exchange(port, i % 2 === 0 ? `NOT HTTP ${i}\r\n\r\n` : "GET / HTTP/9.9\r\n\r\n")))
    for (const raw of replies) expectJsonError(raw, 400, "http.bad_request")
    expect(await healthy()).toBe(200)
  })
})

describe("the clientError listener on a plain node server", () => {
  const serve = (options: http.ServerOptions) =>
    new Promise<{ server: http.Server; port: number }>((resolve) => {
      const server = answerClientErrorsWithJson(http.createServer(options, (_req, res) => res.end("ok")))
      server.listen(0, "127.0.0.1", () => resolve({ server, port: (server.address() as net.AddressInfo).port }))
    })

  it("a request whose headers do not arrive in time gets 408", async () => {
    const { server, port } = await serve({ headersTimeout: 200, requestTimeout: 300, connectionsCheckingInterval: 50 })
    try {
      expectJsonError(await exchange(port, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"), 408, "http.request_timeout")
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })

  it("every reply is a well-formed response whose Content-Length is its body's", () => {
    for (const code of [undefined, "HPE_INVALID_METHOD", "HPE_HEADER_OVERFLOW", "HPE_CHUNK_EXTENSIONS_OVERFLOW", "ERR_HTTP_REQUEST_TIMEOUT", "HPE_SOMETHING_NEW"]) {
      const reply = clientErrorReply(code)
      expectJsonError(clientErrorResponse(reply), reply.status, reply.code)
    }
    expect(clientErrorReply("HPE_SOMETHING_NEW")).toMatchObject({ status: 400, code: "http.bad_request" })
    expect(clientErrorReply("HPE_CHUNK_EXTENSIONS_OVERFLOW").status).toBe(413)
  })
})
