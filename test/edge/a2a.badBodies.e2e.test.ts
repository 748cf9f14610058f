/**
 * Bad A2A bodies get a typed answer (issue 37 item 8b, 8c): a body over the 1 MiB limit is the
 * documented 413 with a JSON-RPC error (the connection was reset before the answer came), and JSON
 * nested 100,000 deep is JSON-RPC's parse error, logged, as the MCP face answers it (it was -32603
 * "Maximum call stack size exceeded" with nothing logged).
 */
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { A2A_BODY_MAX_BYTES } from "../../src/domain/limits.ts"
import { startDaemon, type TestDaemon, tempDir, testConfig } from "../support/daemon.ts"
import { deepArray, deepObject } from "../fuzz/support/hostile.ts"

let daemon: TestDaemon
let key = ""

/** A POST written in chunks, as a client streaming a large body does; resolves with the answer, or rejects on a reset. */
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const u = new URL(`${daemon.url}${path}`)
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname, method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}`, ...headers } },
      (res) => {
        let data = ""
        res.on("data", (c) => (data += c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: data }))
        res.on("error", reject)
      }
    )
    req.on("error", reject)
    const bytes = Buffer.from(body)
    let at = 0
    const write = () => {
      while (at < bytes.length) {
        const chunk = bytes.subarray(at, at + 64 * 1024)
        at += chunk.length
        if (!req.write(chunk)) return void req.once("drain", write)
      }
      req.end()
    }
    write()
  })

const sendMessage = (text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SendMessage", params: { message: { messageId: "m-big", role: "ROLE_USER", parts: [{ text }] } } })

beforeAll(async () => {
  daemon = await startDaemon(testConfig({ hermes: { url: "sim" } }, tempDir()))
  key = await daemon.addClient("bodies", ["agents", "a2a"])
}, 60_000)
afterAll(async () => daemon?.close())

describe("an A2A body over the limit", () => {
  for (const size of [A2A_BODY_MAX_BYTES + 1, 4 * A2A_BODY_MAX_BYTES, 16 * A2A_BODY_MAX_BYTES]) {
    it(`is answered 413 with a JSON-RPC error (${size} bytes, with Content-Length)`, async () => {
      const body = sendMessage("x".repeat(size))
      const res = await post("/a2a", body)
      expect(res.status).toBe(413)
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600 } })
      expect(JSON.parse(res.body).error.message).toContain(`${A2A_BODY_MAX_BYTES} bytes`)
    })
  }
  it("is answered 413 when it comes chunked (no Content-Length)", async () => {
    const res = await post("/a2a", sendMessage("x".repeat(2 * A2A_BODY_MAX_BYTES)), { "transfer-encoding": "chunked" })
    expect(res.status).toBe(413)
    expect(JSON.parse(res.body).error.code).toBe(-32600)
  })
  it("leaves the daemon answering", async () => {
    expect((await fetch(`${daemon.url}/healthz`)).status).toBe(200)
  })
})

describe("A2A JSON nested deep", () => {
  for (const [label, text] of [["arrays", deepArray(100_000)], ["objects", deepObject(100_000)]] as const) {
    it(`is a JSON-RPC parse error (${label} 100,000 deep), as the body of the request`, async () => {
      const res = await post("/a2a", text)
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700 } })
      expect(res.body).not.toMatch(/call stack/i)
    })
    it(`is a JSON-RPC parse error (${label} 100,000 deep), inside the params`, async () => {
      const body = `{"jsonrpc":"2.0","id":3,"method":"SendMessage","params":{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"deep":${text}}}}}`
      const res = await post("/a2a", body)
      expect(JSON.parse(res.body)).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 } })
      expect(res.body).not.toMatch(/call stack/i)
    })
  }
})
