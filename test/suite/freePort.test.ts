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

  it("is not one that a listener holds: a held candidate is passed over for the next draw", async () => {
    const held = await listen(await freeLoopbackPort())
    const port = (held.address() as net.AddressInfo).port
    // The first draw lands on the held port; the second elsewhere.
    const span = ephemeralStart() - 20_000
    const draws = [(port - 20_000 + 0.5) / span, 0.5]
    const drawn = await freeLoopbackPort(() => draws.shift() ?? Math.random())
    expect(draws).toEqual([]) // both draws were used: the held one was tried and refused
    expect(drawn).not.toBe(port)
    held.close()
  })
})
