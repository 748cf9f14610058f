/** `agent-bridge doctor`: the agent-bridge row first, one row per profile check, failure when Hermes is down. */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { doctorRows } from "../../src/cli/doctor.ts"
import { testConfig } from "../support/daemon.ts"

describe("doctor", () => {
  it("passes against the embedded simulator and warns that the drop-in folder is not in skills.external_dirs", async () => {
    const rows = await Effect.runPromise(doctorRows(testConfig({})))
    expect(rows[0]).toMatchObject({ check: "agent-bridge", status: "ok" })
    expect(rows.find((r) => r.check === "hermes")).toMatchObject({ status: "ok" })
    expect(rows.find((r) => r.check === "hermes skills")).toMatchObject({ status: "warn" })
  }, 60_000)

  it("fails the profile row when Hermes does not answer", async () => {
    const rows = await Effect.runPromise(doctorRows(testConfig({ hermes: { url: "http://127.0.0.1:9", key: "k-0123456789" } })))
    expect(rows[0]?.check).toBe("agent-bridge")
    expect(rows.find((r) => r.check === "hermes")).toMatchObject({ status: "fail" })
  }, 60_000)
})
