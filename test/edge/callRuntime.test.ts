/**
 * `callRuntime` (edge/mcp/runTool.ts): a call without progress reuses the runtime made for the same
 * daemon runtime, caller object and tool, which holds that caller, `NO_PROGRESS` and the call's log
 * annotations; any other caller or tool, or a call with progress, gets a runtime of its own.
 */
import { Effect, FiberRef, HashMap, Runtime } from "effect"
import { describe, expect, it } from "vitest"
import { NO_PROGRESS, progressFor } from "../../src/edge/mcp/progress.ts"
import { callRuntime } from "../../src/edge/mcp/runTool.ts"
import { Caller, type CallerShape } from "../../src/request/Caller.ts"
import { Progress } from "../../src/request/Progress.ts"

const seen = Effect.all({ caller: Caller, progress: Progress, annotations: FiberRef.get(FiberRef.currentLogAnnotations) })

describe("callRuntime", () => {
  const base = Runtime.defaultRuntime
  const alice: CallerShape = { client: "alice", isAdmin: false, scopes: ["agents"] }
  const bob: CallerShape = { client: "bob", isAdmin: false, scopes: ["agents"] }

  it("reuses the runtime of a call without progress for the same caller and tool, and only then", () => {
    const first = callRuntime(base, "agent_run_status", alice, progressFor(undefined, async () => undefined))
    expect(callRuntime(base, "agent_run_status", alice, NO_PROGRESS)).toBe(first)
    expect(callRuntime(base, "agents_list", alice, NO_PROGRESS)).not.toBe(first)
    expect(callRuntime(base, "agent_run_status", bob, NO_PROGRESS)).not.toBe(first)
    // The same name and scopes in another object (a key read again after a forget) is another caller.
    expect(callRuntime(base, "agent_run_status", { ...alice }, NO_PROGRESS)).not.toBe(first)
    const withProgress = progressFor("t1", async () => undefined)
    expect(callRuntime(base, "agent_run_status", alice, withProgress)).not.toBe(callRuntime(base, "agent_run_status", alice, withProgress))
  })

  it("a kept runtime holds its caller, no progress and the call's annotations", () => {
    callRuntime(base, "agents_list", bob, NO_PROGRESS)
    const got = Runtime.runSync(callRuntime(base, "agents_list", bob, NO_PROGRESS))(seen)
    expect(got.caller).toBe(bob)
    expect(got.progress.enabled).toBe(false)
    expect(Object.fromEntries(HashMap.toEntries(got.annotations))).toMatchObject({ tool: "agents_list", client: "bob" })
    const live = progressFor("t2", async () => undefined)
    const other = Runtime.runSync(callRuntime(base, "agents_list", alice, live))(seen)
    expect(other.caller).toBe(alice)
    expect(other.progress).toBe(live)
  })
})
