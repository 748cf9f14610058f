/**
 * The simulator's generations named after real builds (`0.19`, `0.20`, `0.22-fork`): what each one
 * defaults to, as `npm run test:hermes` observed the real build (docs/SIMULATOR.md, "Generations"),
 * and the CLI verb's `--generation`. The contract suite runs against each (`contract.sim.*.test.ts`).
 */
import { describe, expect, it } from "vitest"
import { parseHermesSimArgs } from "../../src/cli/hermesSim.ts"
import { resolveSimOptions, type SimGeneration } from "../../src/hermes/sim/options.ts"

const pick = (g: SimGeneration) => {
  const o = resolveSimOptions({ generation: g })
  return {
    protocol: o.protocol, version: o.version, steer: o.steer, approvalRequestId: o.approvalRequestId,
    statusShowsApproval: o.statusShowsApproval, authCode: o.authCode, clarify: o.clarify, replayBacklog: o.replayBacklog,
    restartKeeps: o.restartKeeps, unknownRunEventsAtOnce: o.unknownRunEventsAtOnce, deadSubscriberNoticedLate: o.deadSubscriberNoticedLate,
    maxConcurrentRuns: o.maxConcurrentRuns, subagentEvents: o.subagentEvents
  }
}

describe("the simulator's generations named after real builds", () => {
  it("0.19: the old protocol, 0.19's 401, no steer, no request id, no clarification", () => {
    expect(pick("0.19")).toEqual({
      protocol: "old", version: "0.19.0", steer: false, approvalRequestId: false, statusShowsApproval: false, authCode: "invalid_api_key",
      clarify: false, replayBacklog: null, restartKeeps: "all", unknownRunEventsAtOnce: false, deadSubscriberNoticedLate: true, maxConcurrentRuns: 10, subagentEvents: "none"
    })
  })

  it("0.20: the old protocol with steer and the approval request id, 0.20's 401", () => {
    expect(pick("0.20")).toEqual({
      protocol: "old", version: "0.20.1", steer: true, approvalRequestId: true, statusShowsApproval: false, authCode: "gateway_auth_failed",
      clarify: false, replayBacklog: null, restartKeeps: "all", unknownRunEventsAtOnce: false, deadSubscriberNoticedLate: true, maxConcurrentRuns: 10, subagentEvents: "start"
    })
  })

  it("0.22-fork: the new protocol, a 1000-frame replay backlog, keyed statuses kept across a restart, unknown runs' events 404 at once", () => {
    expect(pick("0.22-fork")).toEqual({
      protocol: "new", version: "0.22.2", steer: true, approvalRequestId: true, statusShowsApproval: true, authCode: "gateway_auth_failed",
      clarify: false, replayBacklog: 1000, restartKeeps: "keyed", unknownRunEventsAtOnce: true, deadSubscriberNoticedLate: false, maxConcurrentRuns: 10, subagentEvents: "start"
    })
  })

  it("old and new are as they were", () => {
    expect(pick("old")).toMatchObject({ protocol: "old", version: "0.20.0", steer: false, approvalRequestId: false, authCode: "invalid_api_key", clarify: true, replayBacklog: null })
    expect(pick("new")).toMatchObject({ protocol: "new", version: "0.20.4", steer: true, approvalRequestId: true, authCode: "gateway_auth_failed", clarify: true, replayBacklog: null, restartKeeps: "all" })
  })

  it("an unknown generation, or a replay backlog below 2, is refused", () => {
    expect(() => resolveSimOptions({ generation: "0.21" as SimGeneration })).toThrow("simulator: unknown generation '0.21'")
    expect(() => resolveSimOptions({ generation: "0.22-fork", replayBacklog: 1 })).toThrow("replayBacklog")
  })

  it("hermes-sim --generation takes every generation; clarification follows the generation unless --clarify says", () => {
    for (const g of ["old", "new", "0.19", "0.20", "0.22-fork"] as const) {
      const o = parseHermesSimArgs(["--generation", g])
      expect(o.generation).toBe(g)
      expect(resolveSimOptions(o).clarify).toBe(g === "old" || g === "new")
    }
    expect(resolveSimOptions(parseHermesSimArgs(["--generation=0.20", "--clarify", "on"])).clarify).toBe(true)
    expect(() => parseHermesSimArgs(["--generation", "0.21"])).toThrow("--generation takes old, new, 0.19, 0.20, 0.22-fork")
  })
})
