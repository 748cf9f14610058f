/** Client addresses behind trusted reverse proxies (`bridge.trusted_proxies`). */
import { describe, expect, it } from "vitest"
import { clientAddress, plainAddress, proxyEntryProblem, trustedProxies } from "../../src/common/trustedProxies.ts"

const none = trustedProxies([])
const local = trustedProxies(["127.0.0.1", "::1"])
const chain = trustedProxies(["10.0.0.0/8", "fd00::/8"])

describe("X-Forwarded-For is believed from trusted proxies only", () => {
  it("without trusted proxies the header is ignored", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.5", none)).toBe("127.0.0.1")
    expect(clientAddress("::ffff:192.0.2.1", "203.0.113.5", none)).toBe("192.0.2.1")
  })

  it("a peer that is not trusted is the client, whatever it forwards", () => {
    expect(clientAddress("192.0.2.7", "203.0.113.5", local)).toBe("192.0.2.7")
  })

  it("behind a trusted proxy the address it appended is the client", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.5", local)).toBe("203.0.113.5")
    expect(clientAddress("::1", "2001:DB8::9", local)).toBe("2001:db8::9")
    expect(clientAddress("::ffff:127.0.0.1", " 203.0.113.5 ", local)).toBe("203.0.113.5")
  })

  it("right to left past every trusted hop; what the client wrote on the left is not believed", () => {
    // The client forged 198.51.100.1; proxy 10.1.1.1 appended the client's real address.
    expect(clientAddress("10.0.0.2", "198.51.100.1, 203.0.113.5, 10.1.1.1", chain)).toBe("203.0.113.5")
    expect(clientAddress("10.0.0.2", "198.51.100.1,203.0.113.5", chain)).toBe("203.0.113.5")
  })

  it("every hop trusted: the leftmost; no header: the peer", () => {
    expect(clientAddress("10.0.0.2", "10.9.9.9, 10.1.1.1", chain)).toBe("10.9.9.9")
    expect(clientAddress("127.0.0.1", undefined, local)).toBe("127.0.0.1")
    expect(clientAddress("127.0.0.1", "", local)).toBe("127.0.0.1")
  })

  it("a hop that is no address stops the walk at the last trusted hop", () => {
    expect(clientAddress("10.0.0.2", "203.0.113.5, unknown, 10.1.1.1", chain)).toBe("10.1.1.1")
    expect(clientAddress("127.0.0.1", "<script>", local)).toBe("127.0.0.1")
  })

  it("ports and brackets are taken off; no peer is null", () => {
    expect(clientAddress("127.0.0.1", "203.0.113.5:4711", local)).toBe("203.0.113.5")
    expect(clientAddress("127.0.0.1", "[2001:db8::1]:443", local)).toBe("2001:db8::1")
    expect(clientAddress(undefined, "203.0.113.5", local)).toBeNull()
    expect(plainAddress("not-an-ip")).toBeNull()
  })

  it("a long header is read for its last 32 hops only", () => {
    const padded = [...Array.from({ length: 1000 }, () => "10.2.2.2"), "10.3.3.3"].join(",")
    expect(clientAddress("10.0.0.2", padded, chain)).toBe("10.2.2.2")
  })
})

describe("trusted_proxies entries", () => {
  it("addresses and CIDR ranges pass; anything else is named", () => {
    for (const ok of ["127.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "0.0.0.0/0"]) expect(proxyEntryProblem(ok)).toBeNull()
    expect(proxyEntryProblem("proxy.local")).toContain("not an IP address or CIDR range")
    expect(proxyEntryProblem("10.0.0.0/33")).toContain("prefix length outside 0–32")
    expect(proxyEntryProblem("::/129")).toContain("0–128")
    expect(proxyEntryProblem("10.0.0.0/8/1")).toContain("not an IP address")
  })
})
