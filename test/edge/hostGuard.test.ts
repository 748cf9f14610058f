/**
 * The Host guard takes a strict `host[:port]` (issue 37 item 8d): a host name, an IPv4 address or a
 * bracketed IPv6 address, then at most a port of digits. Anything else (userinfo, a path, a second
 * colon, spaces, an empty port) is refused, so a value such as `localhost:1@evil.com` can never pass
 * as loopback and then reach the agent card's URL.
 */
import { describe, expect, it } from "vitest"
import { hostAllowed, parseHost } from "../../src/edge/http/hostGuard.ts"

describe("the Host guard's grammar", () => {
  it("takes loopback names and addresses, with or without a port", () => {
    for (const h of ["localhost", "localhost:8765", "127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:8765", "LOCALHOST:1", "app.localhost:3000"]) {
      expect(hostAllowed(h, []), h).toBe(true)
    }
  })

  it("takes an allowed name, with or without a port", () => {
    expect(hostAllowed("bridge.example.org", ["bridge.example.org"])).toBe(true)
    expect(hostAllowed("bridge.example.org:443", ["bridge.example.org"])).toBe(true)
    expect(hostAllowed("bridge.example.org:443", ["bridge.example.org:443"])).toBe(true)
    expect(hostAllowed("bridge.example.org:80", ["bridge.example.org:443"])).toBe(false)
    expect(hostAllowed("[2001:db8::1]:8765", ["[2001:db8::1]"])).toBe(true)
  })

  it("refuses anything that is not host[:port]", () => {
    const bad = [
      "localhost:1@evil.com", "localhost@evil.com", "user@localhost", "localhost:1/evil", "localhost/x", "localhost:",
      "localhost:1:2", "localhost:99999", "localhost:-1", "localhost:1a", "local host", "localhost\t", "[::1", "[::1]x", "[::1]:",
      "[not-an-ip]", "::1", "127.0.0.1:80#x", "localhost?x", "evil.com\\@localhost", "localhost,evil.com", "", " ", "-a.localhost", "a..localhost"
    ]
    for (const h of bad) expect(hostAllowed(h, ["evil.com", "bridge.example.org"]), JSON.stringify(h)).toBe(false)
  })

  it("parses a host into its name and port", () => {
    expect(parseHost("Example.ORG:8765")).toEqual({ name: "example.org", port: 8765 })
    expect(parseHost("[::1]")).toEqual({ name: "[::1]", port: undefined })
    expect(parseHost("localhost:1@evil.com")).toBeUndefined()
  })
})
