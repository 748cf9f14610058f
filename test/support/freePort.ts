/**
 * A free loopback TCP port, for a server that must come back on the same port after a restart
 * (port 0 would give it a new one each time).
 *
 * The port is taken below the kernel's ephemeral range (`/proc/sys/net/ipv4/ip_local_port_range`,
 * 32768–60999 by default). A port the kernel hands out for `:0` comes from that range, and so does
 * the local port of every outgoing connection: released and bound again a moment later (or after a
 * replica's restart), it may by then be a client socket's, and the server fails with EADDRINUSE
 * (seen in CI: a replica's cluster port). Below the range only another listener can take it, and
 * ports are drawn at random there, so two test files rarely try the same one; each candidate is
 * bound once to see it is free.
 */
import * as fs from "node:fs"
import * as net from "node:net"

/** The lowest port the tests draw from. */
const LOWEST = 20_000
const ATTEMPTS = 50

/** The first port of the kernel's ephemeral range (32768 when it cannot be read). */
export const ephemeralStart = (): number => {
  try {
    const first = Number(fs.readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0])
    return Number.isInteger(first) && first > LOWEST + 1000 ? first : 32_768
  } catch {
    return 32_768
  }
}

/** Binds 127.0.0.1:`port` and releases it: the port it got (the kernel's choice for 0), or undefined when taken. */
const tryBind = (port: number): Promise<number | undefined> =>
  new Promise((resolve, reject) => {
    const server = net.createServer()
    server.unref()
    server.once("error", (e: NodeJS.ErrnoException) => (e.code === "EADDRINUSE" || e.code === "EACCES" ? resolve(undefined) : reject(e)))
    server.listen({ host: "127.0.0.1", port, exclusive: true }, () => {
      const address = server.address()
      const got = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(got > 0 ? got : undefined))
    })
  })

/** `random`: where in the range each candidate is drawn (a test passes its own to draw a held port first). */
export const freeLoopbackPort = async (random: () => number = Math.random): Promise<number> => {
  const top = ephemeralStart()
  for (let i = 0; i < ATTEMPTS; i++) {
    const got = await tryBind(LOWEST + Math.floor(random() * (top - LOWEST)))
    if (got !== undefined) return got
  }
  // Every draw taken (a machine full of listeners): the kernel's choice, with the race above.
  const got = await tryBind(0)
  if (got === undefined) throw new Error("no free loopback port")
  return got
}
