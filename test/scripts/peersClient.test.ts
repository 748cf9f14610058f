/**
 * The bench-peers client (scripts/peers/client.ts) against the same-SDK bare server
 * (scripts/peers/sdkEcho.ts), in a process of its own on loopback: both eras are served and echoed,
 * and an answer the bench must not time (an unknown tool, an echo that does not echo, a refused
 * session) is refused. undici itself is not needed: the pool here is a `fetch` of the same shape.
 */
import { type ChildProcess, spawn } from "node:child_process"
import * as net from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LEGACY, MODERN, plainCall, toolCall, type UndiciPool } from "../../scripts/peers/client.ts"

const ROOT = path.join(import.meta.dirname, "..", "..")
let child: ChildProcess
let origin: string

const fetchPool = (base: string): UndiciPool => ({
  request: async ({ path: p, method, headers, body }) => {
    const res = await fetch(base + p, { method, headers, ...(body === undefined ? {} : { body }) })
    const h: Record<string, string> = {}
    res.headers.forEach((v, k) => void (h[k] = v))
    const text = await res.text()
    return { statusCode: res.status, headers: h, body: { text: async () => text } }
  },
  close: async () => undefined
})

beforeAll(async () => {
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port
      s.close(() => resolve(p))
    })
  })
  child = spawn(process.execPath, ["--import", "tsx", path.join(ROOT, "scripts", "peers", "sdkEcho.ts"), String(port)], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on("data", (c: Buffer) => c.toString().includes("listening") && resolve())
    child.once("exit", (code) => reject(new Error(`sdkEcho exited ${code}`)))
  })
  origin = `http://127.0.0.1:${port}`
}, 60_000)

afterAll(() => {
  child?.kill("SIGTERM")
})

describe("bench-peers client", () => {
  it.each([MODERN, LEGACY] as const)("calls the bare SDK server's echo in the %s era, again and again", async (era) => {
    const call = await toolCall({ pool: fetchPool(origin), path: "/mcp" }, era, "echo", { message: "ping-42" }, "ping-42")
    // A 2025 session refuses two requests in flight with one id: each call has its own.
    await Promise.all(Array.from({ length: 8 }, () => call()))
  }, 60_000)

  it.each([MODERN, LEGACY] as const)("refuses an unknown tool in the %s era", async (era) => {
    await expect(toolCall({ pool: fetchPool(origin), path: "/mcp" }, era, "no_such_tool", {})).rejects.toThrow(/HTTP|refused/)
  }, 60_000)

  it("refuses an echo that does not echo what was sent", async () => {
    await expect(toolCall({ pool: fetchPool(origin), path: "/mcp" }, MODERN, "echo", { message: "one" }, "two")).rejects.toThrow(/not the echo of two/)
  }, 60_000)

  it("refuses a session the server does not know", async () => {
    const pool = fetchPool(origin)
    const stale: UndiciPool = { ...pool, request: (o) => pool.request({ ...o, headers: { ...o.headers, "mcp-session-id": "not-a-session" } }) }
    await expect(toolCall({ pool: stale, path: "/mcp" }, LEGACY, "echo", { message: "x" })).rejects.toThrow(/HTTP 404/)
  }, 60_000)

  it("refuses a plain call that is not answered 200", async () => {
    await expect(plainCall({ pool: fetchPool(origin), path: "/not-json-rpc-at-all" })()).rejects.toThrow()
  }, 60_000)
})
