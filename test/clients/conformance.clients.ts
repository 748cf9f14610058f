/**
 * The official MCP conformance suite against the real daemon, in both protocol eras. Every
 * scenario that applies must pass; the ones that need the reference server's fixture tools or
 * capabilities agent-bridge does not offer are in conformance/expected-failures.*.yaml with the
 * reason, and the suite itself fails the run on a listed scenario that starts passing.
 * The suite cannot send a header, so it reaches the daemon through a relay that adds the key.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as YAML from "yaml"
import { type AuthRelay, startAuthRelay } from "./support/authRelay.ts"
import { type Bridge, startBridge } from "./support/bridge.ts"
import { checkOf, effectiveBaseline, failuresOf, runConformance } from "./support/conformance.ts"
import { type ProxySink, startProxySink } from "./support/proxySink.ts"
import { describeRun, makeHome, removeDir, requireInstalled, TOOLS, toolEnv } from "./support/tools.ts"

const HERE = path.join(path.dirname(new URL(import.meta.url).pathname), "conformance")
const LEGACY_BASELINE = path.join(HERE, "expected-failures.legacy.yaml")
const MODERN_BASELINE = path.join(HERE, "expected-failures.modern.yaml")

/** What agent-bridge offers and the 2025-era suite checks: these must pass outright. */
const LEGACY_APPLIES = ["server-initialize", "ping", "tools-list", "server-sse-multiple-streams", "dns-rebinding-protection"]
/** The same for the 2026-07-28 revision (no handshake; per-request _meta and headers). */
const MODERN_APPLIES = ["tools-list", "server-sse-multiple-streams", "dns-rebinding-protection", "http-header-validation"]

/** The checks of server-stateless that can only run against the reference server's fixture tools. */
const STATELESS_FIXTURE_CHECKS = new Set([
  "sep-2575-server-rejects-undeclared-capability",
  "sep-2575-missing-capability-http-400",
  "sep-2575-http-server-no-independent-requests-on-stream",
  "sep-2575-server-no-log-without-loglevel"
])

/**
 * The Tasks extension's scenarios of the 0.2 pre-release ([extension], run one by one with
 * `--scenario`). Most of their checks drive the reference server's fixture tools (slow_compute,
 * greet, failing_job, confirm_delete, ...), so each scenario is an expected failure as a whole, and
 * these checks, which need no fixture, must pass on their own. (tasks-status-notifications is
 * skipped by the suite itself in this release.)
 */
const TASKS_CHECKS: Record<string, ReadonlyArray<string>> = {
  "tasks-capability-negotiation": ["tasks-extension-advertised", "sep-2663-tasks-methods-non-declaring"],
  "tasks-request-headers": ["tasks-headers-reject-mismatched-method"],
  "tasks-dispatch-and-envelope": ["sep-2663-tasks-result-removed-method-not-found", "tasks-removed-tasks-list", "sep-2663-tasks-get-invalid-task-id-32602"]
}

describe("conformance suite", () => {
  let dir: string
  let bridge: Bridge
  let relay: AuthRelay
  let sink: ProxySink
  let env: Record<string, string>
  let legacyBaseline: string
  let modernBaseline: string

  beforeAll(async () => {
    requireInstalled(path.join(TOOLS, "conformance", "dist", "index.js"), path.join(TOOLS, "conformance-next", "dist", "index.js"))
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "agent-bridge-conformance-"))
    sink = await startProxySink()
    bridge = await startBridge(dir, "conformance")
    relay = await startAuthRelay(bridge.url, bridge.setup.key)
    env = toolEnv({ home: makeHome(dir, "home"), proxy: sink.url })
    // Scenarios of a capability the daemon does not declare are expected failures; declared, they must pass.
    const capabilities = ((await bridge.inspect()).getServerCapabilities() ?? {}) as Record<string, unknown>
    legacyBaseline = effectiveBaseline(LEGACY_BASELINE, capabilities, path.join(dir, "expected-failures.legacy.yaml"))
    modernBaseline = effectiveBaseline(MODERN_BASELINE, capabilities, path.join(dir, "expected-failures.modern.yaml"))
  })

  afterAll(async () => {
    await relay?.close()
    await bridge?.close()
    await sink?.close()
    removeDir(dir)
  })

  const url = () => `${relay.url}/mcp/agents/mcp`

  it("0.1.16, 2025 era: every applicable scenario passes; the rest are exactly the expected failures", async () => {
    const r = await runConformance({ pkg: "conformance", url: url(), outDir: path.join(dir, "out-0.1"), env, expectedFailures: legacyBaseline })
    for (const s of LEGACY_APPLIES) expect(failuresOf(r, s), `${s}\n${describeRun(r.result)}`).toBe("")
    expect(r.result.status, describeRun(r.result)).toBe(0)
    expect(sink.hits).toEqual([])
  })

  it("0.2.0-alpha.12, 2025 era: the same, plus session lifecycle", async () => {
    const r = await runConformance({
      pkg: "conformance-next",
      url: url(),
      outDir: path.join(dir, "out-0.2-legacy"),
      env,
      expectedFailures: legacyBaseline,
      args: ["--spec-version", "2025-11-25"]
    })
    for (const s of [...LEGACY_APPLIES, "server-session-lifecycle"]) expect(failuresOf(r, s), `${s}\n${describeRun(r.result)}`).toBe("")
    expect(r.result.status, describeRun(r.result)).toBe(0)
    expect(sink.hits).toEqual([])
  })

  it("0.2.0-alpha.12, 2026-07-28 era (modern): every applicable scenario passes; the rest are exactly the expected failures", async () => {
    const r = await runConformance({
      pkg: "conformance-next",
      url: url(),
      outDir: path.join(dir, "out-0.2-modern"),
      env,
      expectedFailures: modernBaseline,
      args: ["--suite", "all", "--spec-version", "2026-07-28"]
    })
    for (const s of MODERN_APPLIES) expect(failuresOf(r, s), `${s}\n${describeRun(r.result)}`).toBe("")
    // server-stateless is listed as a whole (four checks need fixture tools); the rest of it applies.
    const stateless = r.scenarios.get("server-stateless") ?? []
    expect(stateless.length, describeRun(r.result)).toBeGreaterThan(0)
    const statelessFailures = stateless.filter((c) => !STATELESS_FIXTURE_CHECKS.has(c.id) && !["SUCCESS", "INFO", "WARNING", "SKIPPED"].includes(c.status))
    expect(statelessFailures.map((c) => `${c.id}: ${c.status} ${c.errorMessage ?? ""}`).join("\n")).toBe("")
    // caching is listed as a whole (it also asks prompts and resources); its tools/list part applies.
    expect(checkOf(r, "caching", "sep-2549-tools-list-caching-hints")?.status, failuresOf(r, "caching")).toBe("SUCCESS")
    expect(r.result.status, describeRun(r.result)).toBe(0)
    expect(sink.hits).toEqual([])
  })

  it("0.2.0-alpha.12, Tasks extension: the checks that need no fixture tool pass", async () => {
    const baseline = path.join(dir, "expected-failures.tasks.yaml")
    fs.writeFileSync(baseline, YAML.stringify({ server: Object.keys(TASKS_CHECKS) }))
    for (const [scenario, checks] of Object.entries(TASKS_CHECKS)) {
      const r = await runConformance({
        pkg: "conformance-next",
        url: url(),
        outDir: path.join(dir, `out-tasks-${scenario}`),
        env,
        expectedFailures: baseline,
        args: ["--scenario", scenario, "--suite", "all"]
      })
      for (const id of checks) expect(checkOf(r, scenario, id)?.status, `${scenario}/${id}\n${failuresOf(r, scenario)}`).toBe("SUCCESS")
      expect(r.result.status, describeRun(r.result)).toBe(0)
    }
    expect(sink.hits).toEqual([])
  })
})
