/**
 * Raw HTTP garbage at the MCP endpoints: malformed JSON-RPC, random bytes, wrong content types and
 * Accept headers, oversized bodies, bad session ids, wrong methods and protocol versions, hostile
 * Host / Authorization headers and paths, and bytes that are not HTTP at all. Every answer comes
 * within the deadline, is never a 5xx, carries a body when it is an error (bytes the HTTP parser
 * refuses get the same JSON error body, from the server's `clientError` listener), and never leaks a
 * stack trace or a source path. The daemon answers normally afterwards.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest"
import { type FuzzDaemon, startFuzzDaemon } from "./support/fuzzDaemon.ts"
import { MALFORMED_BODIES, mulberry32, randomBytes } from "./support/hostile.ts"
import { leaksInternals, type RawResponse, rawRequest, rawSocket } from "./support/raw.ts"
import { inProcess, openSession, overHttp } from "./support/wire.ts"

const SEED = Number(process.env["FUZZ_SEED"] ?? 20261130) + 2
const BODY_LIMIT = 4 * 1024 * 1024
const PROTOCOL = "2025-11-25"
const INIT = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: "garbage", version: "0" } } })

interface Sent {
  readonly label: string
  readonly response: RawResponse
}

describe("raw HTTP garbage at the MCP endpoint", () => {
  let daemon: FuzzDaemon
  let auth: Record<string, string>
  let session: Record<string, string>
  const answered: Array<Sent> = []
  const problems: Array<string> = []

  beforeAll(async () => {
    daemon = await startFuzzDaemon()
    auth = { authorization: `Bearer ${daemon.clients.fuzz.key}`, host: "127.0.0.1" }
    const s = await openSession(overHttp(daemon, daemon.clients.fuzz), "agents")
    const init = await rawRequest(daemon.url, { headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: INIT })
    session = { "mcp-session-id": String(init.headers["mcp-session-id"]), "mcp-protocol-version": PROTOCOL }
    await rawRequest(daemon.url, { headers: { ...auth, ...session, "content-type": "application/json", accept: "application/json, text/event-stream" }, body: '{"jsonrpc":"2.0","method":"notifications/initialized"}' })
    await s.close()
  }, 120_000)
  beforeEach(() => {
    problems.length = 0
  })
  afterAll(async () => {
    const byStatus = new Map<number, number>()
    for (const a of answered) byStatus.set(a.response.status, (byStatus.get(a.response.status) ?? 0) + 1)
    console.log(`HTTP garbage: ${answered.length} requests answered, by status: ${[...byStatus.entries()].sort((a, b) => a[0] - b[0]).map(([s, n]) => `${s}×${n}`).join(" ")}; ${problems.length} problems`)
    await daemon?.close()
  })

  /** Sends one garbage request and checks the answer is a clean HTTP error (or a normal answer). */
  const send = async (label: string, init: Parameters<typeof rawRequest>[1], allowed: (status: number) => boolean = (s) => s >= 400 && s < 500) => {
    let response: RawResponse
    try {
      response = await rawRequest(daemon.url, init)
    } catch (e) {
      problems.push(`${label}: ${String(e)}`)
      return undefined
    }
    answered.push({ label, response })
    const { status, body } = response
    if (!allowed(status)) problems.push(`${label}: HTTP ${status} ${body.slice(0, 200)}`)
    if (status >= 500) problems.push(`${label}: server error ${status}`)
    if (status >= 400 && init.method !== "HEAD" && body.trim() === "") problems.push(`${label}: HTTP ${status} without a body`)
    if (leaksInternals(body)) problems.push(`${label}: body leaks internals: ${body.slice(0, 300)}`)
    return response
  }

  const json = { "content-type": "application/json", accept: "application/json, text/event-stream" }
  const notServerError = (s: number) => s < 500

  it("malformed JSON-RPC and random bytes, with and without a session", async () => {
    const rng = mulberry32(SEED)
    for (const body of MALFORMED_BODIES) {
      await send(`no session: ${body.slice(0, 40)}`, { headers: { ...auth, ...json }, body }, notServerError)
      await send(`in session: ${body.slice(0, 40)}`, { headers: { ...auth, ...json, ...session }, body }, notServerError)
    }
    for (let i = 0; i < 40; i++) {
      const body = randomBytes(rng, 1 + Math.floor(rng() * 4096))
      await send(`random bytes #${i}`, { headers: { ...auth, ...json, ...(i % 2 === 0 ? session : {}) }, body })
    }
    expect(problems).toEqual([])
  }, 120_000)

  it("wrong content types and Accept headers", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "application/json-patch+json", "*/*"]) {
      await send(`content-type ${type}`, { headers: { ...auth, "content-type": type, accept: json.accept }, body: INIT })
    }
    await send("no content-type", { headers: { ...auth, accept: json.accept }, body: INIT })
    for (const accept of ["", "*/*", "text/html", "application/json", "text/event-stream", "application/xml, text/plain"]) {
      await send(`accept '${accept}'`, { headers: { ...auth, "content-type": "application/json", ...(accept === "" ? {} : { accept }) }, body: INIT })
    }
    // Variants a lenient server may take: never a server error, and an error always has a body.
    for (const type of ["APPLICATION/JSON", "application/json; charset=utf-8", "application/json; charset=latin1"]) {
      await send(`content-type ${type}`, { headers: { ...auth, "content-type": type, accept: json.accept }, body: INIT }, notServerError)
    }
    expect(problems).toEqual([])
  }, 120_000)

  it("oversized bodies are refused with 413", async () => {
    const over = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"agents_list","arguments":{"x":"${"x".repeat(BODY_LIMIT)}"}}}`
    for (const [label, headers] of [["no session", {}], ["in session", session]] as const) {
      const r = await send(`4 MiB + ${over.length - BODY_LIMIT} B, ${label}`, { headers: { ...auth, ...json, ...headers }, body: over })
      expect(r?.status).toBe(413)
    }
    const huge = Buffer.alloc(16 * BODY_LIMIT, "x")
    const r = await send("64 MiB of x", { headers: { ...auth, ...json, ...session }, body: huge })
    expect(r?.status).toBe(413)
    expect(problems).toEqual([])
  }, 120_000)

  it("bad, foreign, deleted and misplaced session ids", async () => {
    const other = await rawRequest(daemon.url, { headers: { authorization: `Bearer ${daemon.clients.other.key}`, ...json }, body: INIT })
    const otherSession = String(other.headers["mcp-session-id"])
    const ping = '{"jsonrpc":"2.0","id":7,"method":"ping"}'
    for (const [label, sid] of [
      ["random uuid", "6f1c2b9e-9d51-4a3e-8f7a-2b1c0d9e8f7a"], ["empty", ""], ["4 KB", "s".repeat(4000)], ["another client's", otherSession],
      ["latin-1 bytes", "caf\u00e9"], ["spaces", "  a b  "]
    ] as const) {
      await send(`session id ${label}`, { headers: { ...auth, ...json, "mcp-session-id": sid, "mcp-protocol-version": PROTOCOL }, body: ping })
    }
    await send("agents session on the memory server", { path: "/mcp/memory/mcp", headers: { ...auth, ...json, ...session }, body: ping })
    const doomed = await rawRequest(daemon.url, { headers: { ...auth, ...json }, body: INIT })
    const doomedId = { "mcp-session-id": String(doomed.headers["mcp-session-id"]), "mcp-protocol-version": PROTOCOL }
    await send("delete a session", { method: "DELETE", headers: { ...auth, ...doomedId } }, (s) => s === 200)
    await send("use a deleted session", { headers: { ...auth, ...json, ...doomedId }, body: ping })
    await send("delete it again", { method: "DELETE", headers: { ...auth, ...doomedId } })
    expect(problems).toEqual([])
  }, 120_000)

  it("wrong methods, GET without Accept, bad protocol versions", async () => {
    await send("GET without accept", { method: "GET", headers: { ...auth, ...session } })
    await send("GET html", { method: "GET", headers: { ...auth, ...session, accept: "text/html" } })
    await send("GET stream without session", { method: "GET", headers: { ...auth, accept: "text/event-stream" } })
    await send("GET stream, bad session", { method: "GET", headers: { ...auth, accept: "text/event-stream", "mcp-session-id": "nope" } })
    await send("DELETE without session", { method: "DELETE", headers: auth })
    for (const method of ["PUT", "PATCH", "OPTIONS", "TRACE", "PROPFIND"]) await send(method, { method, headers: { ...auth, ...json, ...session }, body: "{}" })
    await send("HEAD", { method: "HEAD", headers: { ...auth, ...session } })
    for (const version of ["1999-01-01", "", "2025-11-25; drop", "x".repeat(300)]) {
      await send(`protocol version '${version.slice(0, 20)}'`, { headers: { ...auth, ...json, ...session, "mcp-protocol-version": version }, body: '{"jsonrpc":"2.0","id":3,"method":"ping"}' })
    }
    expect(problems).toEqual([])
  }, 120_000)

  it("hostile Host, Authorization and paths", async () => {
    const key = daemon.clients.fuzz.key
    // (An empty Host is sent over a plain socket below: node's client fills in its own.)
    for (const host of ["evil.example", "127.0.0.1.evil.example", "localhost.evil.example:80", "[::1", "x".repeat(2000)]) {
      await send(`host '${host.slice(0, 30)}'`, { headers: { ...json, authorization: `Bearer ${key}`, host }, body: INIT })
    }
    for (const authorization of ["", "Bearer", "Bearer ", `Bearer ${"x".repeat(8000)}`, "Basic dXNlcjpwYXNz", `Token ${key}`, `Bearer ${key}x`, `Bearer ${key.slice(0, -1)}`, "Bearer \u00ff\u00fe"]) {
      await send(`authorization '${authorization.slice(0, 20)}'`, { headers: { ...json, host: "127.0.0.1", authorization }, body: INIT })
    }
    for (const path of ["/mcp/agents/mcp/", "/mcp/agents/%2e%2e/mcp", "/mcp/agents/mcp%00", "//mcp/agents/mcp", `/mcp/agents/${"a".repeat(8000)}`, "/MCP/agents/mcp", "/mcp/agents", "/mcp/memory/mcp/x", "/mcp/agents/mcp/../../healthz/../mcp"]) {
      await send(`path ${path.slice(0, 40)}`, { path, headers: { ...auth, ...json }, body: INIT })
    }
    expect(problems).toEqual([])
  }, 120_000)

  it("bytes that are not HTTP get a 4xx JSON error and a closed connection, never a hang", async () => {
    const rng = mulberry32(SEED + 1)
    const inputs: ReadonlyArray<string | Uint8Array> = [
      "GARBAGE\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", "POST /mcp/agents/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nZZZ\r\nnot a chunk\r\n\r\n",
      "POST /mcp/agents/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${"x".repeat(100_000)}\r\n\r\n`,
      "POST /mcp/agents/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n", randomBytes(rng, 1024), randomBytes(rng, 64)
    ]
    for (const bytes of inputs) {
      const label = typeof bytes === "string" ? bytes.slice(0, 40) : `${bytes.length} random bytes`
      try {
        const reply = await rawSocket(daemon.url, bytes)
        // Refused by the parser, or (a request it could read) by the routes: a JSON error either way.
        if (!/^HTTP\/1\.1 4\d\d [\s\S]*\r\nContent-Type: application\/json\r\n[\s\S]*\r\n\r\n\{"error":\{"code":"[a-z_.]+","message":"[^"]+"\}\}/i.test(reply)) {
          problems.push(`socket ${JSON.stringify(label)}: ${JSON.stringify(reply.slice(0, 200))}`)
        }
        if (leaksInternals(reply)) problems.push(`socket ${JSON.stringify(label)}: leaks internals`)
      } catch (e) {
        problems.push(`socket ${JSON.stringify(label)}: ${String(e)}`)
      }
    }
    // CONNECT: node's server has no tunnel to offer and closes the connection without an answer.
    await rawSocket(daemon.url, "CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    const emptyHost = await rawSocket(daemon.url, `POST /mcp/agents/mcp HTTP/1.1\r\nHost:\r\nAuthorization: Bearer ${daemon.clients.fuzz.key}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: 2\r\n\r\n{}`)
    if (!/^HTTP\/1\.1 403 [\s\S]*"auth\.forbidden"/.test(emptyHost)) problems.push(`empty Host: ${JSON.stringify(emptyHost.slice(0, 200))}`)
    // A body shorter than its Content-Length, then the client goes away: nothing to answer, nothing stuck.
    await rawSocket(daemon.url, `POST /mcp/agents/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${daemon.clients.fuzz.key}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{"jsonrpc"`, true)
    expect(problems).toEqual([])
  }, 120_000)

  it("50 garbage requests at once are all answered, and the daemon still serves", async () => {
    const rng = mulberry32(SEED + 2)
    await Promise.all(Array.from({ length: 50 }, (_, i) =>
      send(`concurrent #${i}`, { headers: { ...auth, ...json, ...(i % 2 === 0 ? session : {}) }, body: i % 3 === 0 ? randomBytes(rng, 512) : MALFORMED_BODIES[i % MALFORMED_BODIES.length]! }, notServerError)))
    expect(problems).toEqual([])
    expect(await daemon.healthy()).toBe(true)
    const s = await openSession(inProcess(daemon, daemon.clients.fuzz), "agents")
    const answer = await s.callTool("agents_list", "{}")
    expect(answer._tag === "result" && answer.result["isError"] !== true).toBe(true)
    await s.close()
  }, 120_000)
})
