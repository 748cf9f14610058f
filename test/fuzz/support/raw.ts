/**
 * Raw HTTP for garbage tests: `node:http` (any Host, method, header or body; a deadline on the whole
 * exchange) and a plain socket for bytes that are not HTTP at all.
 */
import * as http from "node:http"
import * as net from "node:net"

export interface RawResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

export const DEADLINE_MS = 15_000

export const rawRequest = (
  baseUrl: string,
  init: { method?: string; path?: string; headers?: Record<string, string>; body?: string | Uint8Array }
): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const u = new URL(baseUrl)
    const req = http.request(
      {
        host: u.hostname, port: u.port, path: init.path ?? "/mcp/agents/mcp", method: init.method ?? "POST", timeout: DEADLINE_MS,
        // Explicit, or node sends the body of an OPTIONS or TRACE unframed, and the server reads it as the next request.
        headers: { ...(init.body === undefined ? {} : { "content-length": String(Buffer.byteLength(init.body)) }), ...init.headers }
      },
      (res) => {
        const chunks: Array<Buffer> = []
        res.on("data", (c: Buffer) => chunks.push(c))
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }))
        res.on("error", reject)
      }
    )
    req.on("timeout", () => req.destroy(new Error(`no answer within ${DEADLINE_MS} ms`)))
    req.on("error", reject)
    req.end(init.body)
  })

/** Writes `bytes` on a fresh connection and returns everything the server sends until it closes. */
export const rawSocket = (baseUrl: string, bytes: string | Uint8Array, endAfterWrite = false): Promise<string> =>
  new Promise((resolve, reject) => {
    const u = new URL(baseUrl)
    const socket = net.connect({ host: u.hostname, port: Number(u.port) })
    const chunks: Array<Buffer> = []
    const timer = setTimeout(() => {
      socket.destroy()
      reject(new Error(`connection still open after ${DEADLINE_MS} ms; got: ${Buffer.concat(chunks).toString("latin1").slice(0, 200)}`))
    }, DEADLINE_MS)
    socket.on("data", (c: Buffer) => chunks.push(c))
    socket.on("close", () => {
      clearTimeout(timer)
      resolve(Buffer.concat(chunks).toString("latin1"))
    })
    socket.on("error", () => undefined)
    socket.write(bytes, () => {
      if (endAfterWrite) socket.end()
    })
  })

/** A stack frame or a source path in a body means an internal error leaked. */
export const leaksInternals = (body: string) => /\n\s+at .+[:(]\d+|node_modules|\/src\/|\.ts:\d+/.test(body)
