/**
 * `agent-bridge doctor`: the agent-bridge row first, one row per profile check, failure when Hermes
 * is down; the skills-folder check reads a real Hermes's config.yaml, and is not made against the
 * built-in simulator (which reads none).
 */
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { doctorRows } from "../../src/cli/doctor.ts"
import { type SimulatorAsync, startSimulatorAsync } from "../../src/hermes/sim/layer.ts"
import { testConfig } from "../support/daemon.ts"
import { tempDir } from "../support/tempDirs.ts"

/** A Hermes home whose config.yaml lists no external skills dir, as on a machine with Hermes installed. */
const hermesHome = (externalDirs: ReadonlyArray<string>) => {
  const home = tempDir()
  fs.writeFileSync(path.join(home, "config.yaml"), `skills:\n  external_dirs: ${JSON.stringify(externalDirs)}\n`)
  return home
}

describe("doctor", () => {
  let sim: SimulatorAsync
  beforeAll(async () => {
    sim = await startSimulatorAsync({ profiles: [{ name: "default", key: "doctor-key-0123456789" }] })
  })
  afterAll(() => sim?.close())

  it("passes against the embedded simulator without checking a config.yaml the simulator never reads", async () => {
    const rows = await Effect.runPromise(doctorRows(testConfig({ hermes: { home: hermesHome([]) } })))
    expect(rows[0]).toMatchObject({ check: "agent-bridge", status: "ok" })
    expect(rows.find((r) => r.check === "hermes")).toMatchObject({ status: "ok" })
    const skills = rows.find((r) => r.check === "hermes skills")
    expect(skills).toMatchObject({ status: "ok" })
    expect(skills?.detail).toContain("built-in simulator")
    expect(rows.every((r) => r.status === "ok")).toBe(true)
  }, 60_000)

  it("warns when a real Hermes's config.yaml does not list the drop-in folder", async () => {
    const config = testConfig({ hermes: { url: sim.url, key: "doctor-key-0123456789", home: hermesHome(["/elsewhere"]) } })
    const rows = await Effect.runPromise(doctorRows(config))
    expect(rows.find((r) => r.check === "hermes")).toMatchObject({ status: "ok" })
    const skills = rows.find((r) => r.check === "hermes skills")
    expect(skills).toMatchObject({ status: "warn" })
    expect(skills?.detail).toContain(`${config.dropinDir} is not in skills.external_dirs`)
  }, 60_000)

  it("is ok when a real Hermes's config.yaml lists the drop-in folder", async () => {
    const dir = tempDir()
    const config = testConfig({ hermes: { url: sim.url, key: "doctor-key-0123456789" }, skills: { dropin_dir: path.join(dir, "skills") } })
    const home = hermesHome([config.dropinDir])
    const rows = await Effect.runPromise(doctorRows({ ...config, hermesHome: home }))
    expect(rows.find((r) => r.check === "hermes skills")).toMatchObject({ status: "ok" })
  }, 60_000)

  it("says which optional features each profile lacks, from the client's own detection", async () => {
    const old = await startSimulatorAsync({ generation: "old", profiles: [{ name: "default", key: "doctor-key-0123456789" }] })
    try {
      const home = hermesHome([])
      const rows = await Effect.runPromise(doctorRows(testConfig({ hermes: { url: old.url, key: "doctor-key-0123456789", home } })))
      expect(rows.find((r) => r.check === "hermes features")).toEqual({
        check: "hermes features",
        status: "ok",
        detail: "lacks steer, durable idempotency; event replay not known here (Hermes does not advertise it: agents_list shows what the daemon saw on a run's stream)"
      })
      const newer = await Effect.runPromise(doctorRows(testConfig({ hermes: { url: sim.url, key: "doctor-key-0123456789", home } })))
      expect(newer.find((r) => r.check === "hermes features")?.detail).toMatch(/^has steer, durable idempotency; event replay not known here/)
    } finally {
      await old.close()
    }
  }, 60_000)

  it("fails the profile row when Hermes does not answer", async () => {
    const rows = await Effect.runPromise(doctorRows(testConfig({ hermes: { url: "http://127.0.0.1:9", key: "k-0123456789" } })))
    expect(rows[0]?.check).toBe("agent-bridge")
    expect(rows.find((r) => r.check === "hermes")).toMatchObject({ status: "fail" })
    expect(rows.find((r) => r.check === "hermes features")).toMatchObject({ status: "warn", detail: expect.stringContaining("capabilities could not be read") })
  }, 60_000)
})
