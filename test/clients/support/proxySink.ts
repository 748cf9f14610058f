/**
 * A loopback HTTP(S) proxy that forwards nothing: every request and CONNECT it receives is recorded
 * and refused. The client tools get it as HTTP_PROXY / HTTPS_PROXY (loopback exempt), so a client
 * that tries to reach anything off the machine (telemetry, update checks, a model API we did not
 * fake) shows up in `hits`, and the tests assert that list is empty.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface ProxySink {
  readonly url: string
  readonly hits: ReadonlyArray<string>
  readonly close: () => Promise<void>
}

export const startProxySink = async (): Promise<ProxySink> => {
  const hits: Array<string> = []
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`)
    res.writeHead(403, { "content-type": "text/plain" }).end("agent-bridge test: no traffic may leave loopback\n")
  })
  server.on("connect", (req, socket) => {
    hits.push(`CONNECT ${req.url}`)
    socket.end("HTTP/1.1 403 Forbidden\r\n\r\n")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

/**
 * The proxy variables a peer process gets: every form tools read (upper and lower case, ALL_PROXY)
 * aimed at the sink, loopback exempt, so the daemon and the fakes on 127.0.0.1 are reached directly.
 */
export const proxyEnv = (proxy: string): Record<string, string> => ({
  HTTP_PROXY: proxy,
  HTTPS_PROXY: proxy,
  ALL_PROXY: proxy,
  http_proxy: proxy,
  https_proxy: proxy,
  all_proxy: proxy,
  NO_PROXY: "127.0.0.1,localhost",
  no_proxy: "127.0.0.1,localhost"
})
