/**
 * The tests' fixed ports (test/support/freePort.ts) come from below the kernel's ephemeral range,
 * where no outgoing connection's local port can take them between the draw and the bind.
 */
import { describe, expect, it } from "vitest"
import * as net from "node:net"
import { ephemeralStart, freeLoopbackPort } from "../support/freePort.ts"

const listen = (port: number) =>
  new Promise<net.Server>((resolve, reject) => {
    const server = net.createServer()
    server.once("error", reject)
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => resolve(server))
  })

describe("a free loopback port", () => {
  it("is below the ephemeral range, and free to bind", async () => {
    const ports = await Promise.all(Array.from({ length: 20 }, () => freeLoopbackPort()))
    for (const port of ports) {
      expect(port).toBeGreaterThanOrEqual(20_000)
      expect(port).toBeLessThan(ephemeralStart())
    }
    const server = await listen(ports[0]!)
    server.close()
  })

  it("is not one that a listener holds", async () => {
    const held = await listen(await freeLoopbackPort())
    const port = (held.address() as net.AddressInfo).port
    const drawn = await Promise.all(Array.from({ length: 50 }, () => freeLoopbackPort()))
    expect(drawn).not.toContain(port)
    held.close()
  })
})
