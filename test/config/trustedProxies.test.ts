/** `bridge.trusted_proxies`: the default, the file, the environment, and a clear refusal of a bad entry. */
import { Either } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config/load.ts"
import { tempDir } from "../support/daemon.ts"

const fromFile = (yaml: string, env: Record<string, string> = {}) => {
  const file = path.join(tempDir(), "agent-bridge.yaml")
  fs.writeFileSync(file, yaml)
  return loadConfig({ configPath: file, env })
}

describe("bridge.trusted_proxies", () => {
  it("is empty by default", () => {
    expect(Either.getOrThrow(loadConfig({ env: {}, cwd: tempDir() })).bridge.trusted_proxies).toEqual([])
  })

  it("takes addresses and CIDR ranges from the file", () => {
    const cfg = Either.getOrThrow(fromFile("bridge: {trusted_proxies: [127.0.0.1, '10.0.0.0/8', '::1']}\n"))
    expect(cfg.bridge.trusted_proxies).toEqual(["127.0.0.1", "10.0.0.0/8", "::1"])
  })

  it("AGENT_BRIDGE_BRIDGE_TRUSTED_PROXIES overrides it, one entry or a comma list", () => {
    const one = Either.getOrThrow(fromFile("bridge: {}\n", { AGENT_BRIDGE_BRIDGE_TRUSTED_PROXIES: "127.0.0.1" }))
    expect(one.bridge.trusted_proxies).toEqual(["127.0.0.1"])
    const two = Either.getOrThrow(fromFile("bridge: {trusted_proxies: [192.0.2.1]}\n", { AGENT_BRIDGE_BRIDGE_TRUSTED_PROXIES: "10.0.0.1, fd00::/8" }))
    expect(two.bridge.trusted_proxies).toEqual(["10.0.0.1", "fd00::/8"])
  })

  it("refuses an entry that is no address or range, naming the key and the entry", () => {
    const bad = fromFile("bridge: {trusted_proxies: [proxy.lan]}\n")
    expect(Either.isLeft(bad)).toBe(true)
    const message = Either.isLeft(bad) ? bad.left.message : ""
    expect(message).toContain("bridge.trusted_proxies")
    expect(message).toContain('"proxy.lan" is not an IP address or CIDR range')
  })
})
