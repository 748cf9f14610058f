/**
 * A loopback relay that adds the client's bearer key to every request that has none and passes
 * everything else through untouched (method, path, headers including Host and Origin, body,
 * streamed responses). The conformance suite has no way to send a header of its own, and the
 * daemon refuses a request without a key, so the suite talks to the daemon through this. It also
 * records what each request was and what the daemon answered (`seen`), for tests that check which
 * protocol era a client spoke and what it was answered.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface SeenRequest {
  readonly httpMethod: string
  /** The `MCP-Protocol-Version` header, if any. */
  readonly protocolHeader: string | undefined
  /** The request body (the JSON-RPC message), as sent. */
  readonly body: string
  /** The daemon's answer body as it streamed back (JSON or SSE text); filled in as it arrives. */
  readonly response: string
}

export interface AuthRelay {
  readonly url: string
  readonly seen: ReadonlyArray<SeenRequest>
  readonly close: () => Promise<void>
}

export const startAuthRelay = async (target: string, key: string): Promise<AuthRelay> => {
  const upstream = new URL(target)
  const seen: Array<SeenRequest> = []
  const server = http.createServer((req, res) => {
    let body = ""
    const protocol = req.headers["mcp-protocol-version"]
    const entry = { httpMethod: req.method ?? "", protocolHeader: Array.isArray(protocol) ? protocol[0] : protocol, body, response: "" }
    req.on("data", (c: Buffer) => (body += c.toString("utf8")))
    req.on("end", () => {
      entry.body = body
      seen.push(entry)
    })
    const headers = { ...req.headers }
    if (headers.authorization === undefined) headers.authorization = `Bearer ${key}`
    const out = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        res.flushHeaders()
        answer.on("data", (c: Buffer) => (entry.response += c.toString("utf8")))
        answer.pipe(res)
      }
    )
    out.on("error", () => res.destroy())
    res.on("close", () => out.destroy())
    req.pipe(out)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
