/**
 * A loopback TCP relay in front of a Hermes, so a test can drop the bridge's live connections
 * (`cutAll`) the way a broken link does, against any Hermes, the real one included.
 */
import * as net from "node:net"

export interface Relay {
  readonly url: string
  /** Resets every open connection through the relay. */
  cutAll(): void
  close(): Promise<void>
}

export const startRelay = (target: string): Promise<Relay> => {
  const to = new URL(target)
  const open = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(to.port), to.hostname)
    open.add(client)
    open.add(upstream)
    const drop = () => {
      open.delete(client)
      open.delete(upstream)
      client.destroy()
      upstream.destroy()
    }
    client.on("error", drop).on("close", drop)
    upstream.on("error", drop).on("close", drop)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as net.AddressInfo).port
      resolve({
        url: `http://127.0.0.1:${port}${to.pathname === "/" ? "" : to.pathname}`,
        cutAll: () => {
          for (const s of [...open]) s.resetAndDestroy()
        },
        close: () => new Promise<void>((r) => {
          for (const s of [...open]) s.destroy()
          server.close(() => r())
        })
      })
    })
  })
}
