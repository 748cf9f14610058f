/** `bridge.allowed_origins`: the default, the file, the environment (one origin or a list), and the match. */
import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { loadConfig } from "../../src/config/load.ts"
import { originAllowed } from "../../src/edge/http/originGuard.ts"
import { tempDir } from "../support/daemon.ts"

const load = (env: Record<string, string>) => Either.getOrThrow(loadConfig({ env, cwd: tempDir() }))

describe("bridge.allowed_origins", () => {
  it("is empty by default and is set from AGENT_BRIDGE_BRIDGE_ALLOWED_ORIGINS, one origin or a list", () => {
    expect(load({}).bridge.allowed_origins).toEqual([])
    expect(load({ AGENT_BRIDGE_BRIDGE_ALLOWED_ORIGINS: "http://localhost:6274" }).bridge.allowed_origins).toEqual(["http://localhost:6274"])
    expect(load({ AGENT_BRIDGE_BRIDGE_ALLOWED_ORIGINS: "http://a.lan, https://b.lan:8443" }).bridge.allowed_origins).toEqual(["http://a.lan", "https://b.lan:8443"])
  })

  it("lets through requests without an Origin, and only listed origins otherwise", () => {
    const allowed = ["http://localhost:6274", "https://console.example/"]
    expect(originAllowed(undefined, [])).toBe(true)
    expect(originAllowed("http://localhost:6274", [])).toBe(false)
    expect(originAllowed("http://localhost:6274", allowed)).toBe(true)
    expect(originAllowed("https://CONSOLE.example", allowed)).toBe(true)
    expect(originAllowed("https://console.example:443", allowed)).toBe(true)
    for (const o of ["null", "", "http://localhost:6275", "https://localhost:6274", "file:///x", "not a url"]) expect(originAllowed(o, allowed)).toBe(false)
  })

  it("lets through the daemon's own origin (the request's Host), and no other origin for that Host", () => {
    expect(originAllowed("http://127.0.0.1:8765", [], "127.0.0.1:8765")).toBe(true)
    expect(originAllowed("http://LOCALHOST:8765", [], "localhost:8765")).toBe(true)
    expect(originAllowed("http://localhost:8766", [], "localhost:8765")).toBe(false)
    expect(originAllowed("http://evil.example", [], "localhost:8765")).toBe(false)
    expect(originAllowed("null", [], "localhost:8765")).toBe(false)
    expect(originAllowed("http://localhost:8765", [], "")).toBe(false)
  })
})
