/**
 * The webhook address classifier and allow list (domain/a2a/): properties over random addresses,
 * checked against node:net's own parser and BlockList (an independent reading of the same ranges),
 * and the IPv6 dressings of private IPv4 addresses.
 */
import { BlockList, isIP } from "node:net"
import * as fc from "fast-check"
import { describe, expect, it } from "vitest"
import { classify, formatAddress, parseAddress } from "../../src/domain/a2a/addresses.ts"
import { parseAllowRule, refusalOf, type AllowRule } from "../../src/domain/a2a/webhookAllow.ts"

const blocked = new BlockList()
for (const [net, bits] of [["10.0.0.0", 8], ["172.16.0.0", 12], ["192.168.0.0", 16], ["169.254.0.0", 16], ["127.0.0.0", 8], ["0.0.0.0", 8], ["100.64.0.0", 10], ["224.0.0.0", 4], ["240.0.0.0", 4], ["192.0.0.0", 24], ["198.18.0.0", 15]] as const) {
  blocked.addSubnet(net, bits, "ipv4")
}
for (const [net, bits] of [["fc00::", 7], ["fe80::", 10], ["::", 128], ["::1", 128], ["ff00::", 8], ["fec0::", 10]] as const) blocked.addSubnet(net, bits, "ipv6")

const v4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join("."))
const v6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((x) => x.toString(16)).join(":"))

const rules = (...entries: Array<string>): Array<AllowRule> => entries.map((e) => {
  const r = parseAllowRule(e)
  if (typeof r === "string") throw new Error(r)
  return r
})
const everything = rules("0.0.0.0/0", "::/0")

describe("the address classifier", () => {
  it("parses exactly what node:net calls an IP address, and formats it back to the same address", () => {
    fc.assert(fc.property(fc.oneof(v4, v6, fc.string({ maxLength: 20 })), (text) => {
      const parsed = parseAddress(text)
      // node accepts zone ids and leading zeros in some forms the classifier refuses: parse ⊆ isIP.
      if (parsed !== undefined) {
        expect(isIP(text)).toBe(parsed.family)
        expect(parseAddress(formatAddress(parsed))).toEqual(parsed)
      }
    }), { numRuns: 2000 })
    fc.assert(fc.property(fc.oneof(v4, v6), (text) => {
      expect(parseAddress(text)).toBeDefined()
    }), { numRuns: 1000 })
  })

  it("calls an IPv4 address public exactly when no blocked range holds it", () => {
    fc.assert(fc.property(v4, (text) => {
      const kind = classify(parseAddress(text)!)
      expect(kind === "public").toBe(!blocked.check(text, "ipv4"))
    }), { numRuns: 5000 })
  })

  it("classifies an IPv4 address wrapped in IPv6 (mapped, translated, compatible, NAT64, 6to4) as the address itself, never as public when it is not", () => {
    fc.assert(fc.property(v4, (text) => {
      const inner = classify(parseAddress(text)!)
      const b = text.split(".").map(Number)
      const hex = `${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`
      for (const form of [`::ffff:${text}`, `::ffff:${hex}`, `::ffff:0:${text}`, `64:ff9b::${text}`, `2002:${hex}::1`]) {
        const kind = classify(parseAddress(form)!)
        if (inner === "public") expect(kind, form).toBe("public")
        else expect(kind, form).not.toBe("public")
      }
    }), { numRuns: 3000 })
  })

  it("never calls a blocked IPv6 address public", () => {
    fc.assert(fc.property(v6, (text) => {
      if (blocked.check(text, "ipv6")) expect(classify(parseAddress(text)!)).not.toBe("public")
    }), { numRuns: 5000 })
  })

  it.each([
    ["10.1.2.3", "private"], ["172.31.255.255", "private"], ["172.32.0.1", "public"], ["192.168.0.1", "private"],
    ["169.254.169.254", "metadata"], ["169.254.1.1", "link_local"], ["127.0.0.1", "loopback"], ["0.0.0.0", "unspecified"],
    ["::", "unspecified"], ["::1", "loopback"], ["fd00:ec2::254", "metadata"], ["fd12::1", "private"], ["fe80::1", "link_local"],
    ["::ffff:10.0.0.1", "private"], ["::ffff:169.254.169.254", "metadata"], ["::ffff:127.0.0.1", "private"], ["::ffff:a9fe:a9fe", "metadata"],
    ["2001:db8::1", "reserved"], ["2606:4700::1111", "public"], ["8.8.8.8", "public"]
  ])("%s is %s", (text, kind) => {
    expect(classify(parseAddress(text)!)).toBe(kind)
  })
})

describe("the allow list", () => {
  const url = (u: string) => new URL(u)
  it("never reaches a private, link-local, metadata or unspecified address, whatever it allows", () => {
    fc.assert(fc.property(fc.oneof(v4, v6), (text) => {
      const a = parseAddress(text)!
      const kind = classify(a)
      const why = refusalOf(everything, url("https://hooks.example.com/x"), a)
      if (kind === "public" || kind === "loopback") expect(why).toBeUndefined()
      else expect(why).toMatch(/never reach/)
    }), { numRuns: 3000 })
  })

  it("reaches loopback only when an address entry names it, never by a host or URL entry", () => {
    const lo = parseAddress("127.0.0.1")!
    expect(refusalOf(rules("127.0.0.1"), url("http://127.0.0.1:9/x"), lo)).toBeUndefined()
    expect(refusalOf(rules("localhost", "http://127.0.0.1:9/"), url("http://127.0.0.1:9/x"), lo)).toMatch(/loopback/)
    expect(refusalOf(rules("127.0.0.1"), url("http://[::1]:9/x"), parseAddress("::1")!)).toMatch(/loopback/)
  })

  it("matches URL prefixes, host names, *.domain and CIDR blocks, and nothing else", () => {
    const pub = parseAddress("203.0.113.9")!
    const pub2 = parseAddress("8.8.8.8")!
    expect(refusalOf(rules("https://hooks.example.com/a2a/"), url("https://hooks.example.com/a2a/x"), pub2)).toBeUndefined()
    expect(refusalOf(rules("https://hooks.example.com/a2a/"), url("https://hooks.example.com/other"), pub2)).toMatch(/not in/)
    expect(refusalOf(rules("hooks.example.com"), url("https://hooks.example.com/"), pub2)).toBeUndefined()
    expect(refusalOf(rules("hooks.example.com"), url("https://evil-hooks.example.com/"), pub2)).toMatch(/not in/)
    expect(refusalOf(rules("*.example.com"), url("https://a.b.example.com/"), pub2)).toBeUndefined()
    expect(refusalOf(rules("*.example.com"), url("https://example.com.evil.net/"), pub2)).toMatch(/not in/)
    expect(refusalOf(rules("8.8.8.0/24"), url("https://dns.example/"), pub2)).toBeUndefined()
    expect(refusalOf(rules("8.8.8.0/24"), url("https://dns.example/"), pub)).toMatch(/not in/)
  })

  it.each(["", "http://", "10.0.0.0/33", "::/129", "1.2.3.4/x", "not a host!", "https://u:p@hooks.example.com/"])("refuses the entry %j", (entry) => {
    expect(typeof parseAllowRule(entry)).toBe("string")
  })
})
