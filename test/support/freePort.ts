/**
 * A free loopback TCP port, for a server that must come back on the same port after a restart
 * (port 0 would give it a new one each time). Bind 127.0.0.1:0, read the port, release it.
 */
import * as net from "node:net"

export const freeLoopbackPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.once("error", reject)
    server.listen({ host: "127.0.0.1", port: 0, exclusive: true }, () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("no port assigned"))))
    })
  })
