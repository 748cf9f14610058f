/**
 * Where the real Hermes's HTTP_PROXY / HTTPS_PROXY point: a loopback listener that refuses every
 * request (plain or CONNECT) and remembers it. Hermes must not reach out at all in the tests, so the
 * suite fails if `hits` is not empty at the end.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface ProxyHit {
  readonly method: string
  readonly target: string
  readonly at: number
}

export interface ProxySink {
  readonly url: string
  readonly hits: ReadonlyArray<ProxyHit>
  close(): Promise<void>
}

export const startProxySink = (): Promise<ProxySink> => {
  const hits: Array<ProxyHit> = []
  const server = http.createServer((req, res) => {
    hits.push({ method: req.method ?? "?", target: req.url ?? "?", at: Date.now() })
    res.writeHead(403, { "content-type": "text/plain" })
    res.end("agent-bridge tests: no outbound connections\n")
  })
  // HTTPS through a proxy starts with CONNECT host:443; refuse it the same way.
  server.on("connect", (req, socket) => {
    hits.push({ method: "CONNECT", target: req.url ?? "?", at: Date.now() })
    socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        hits,
        close: () => new Promise<void>((r) => {
          server.closeAllConnections()
          server.close(() => r())
        })
      })
    })
  })
}
