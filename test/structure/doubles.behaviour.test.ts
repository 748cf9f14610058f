/**
 * The doubles beside the tags do what their one line says: they fake what they name, record what
 * they say they record, and (the real layers on an in-memory database or a temp folder) leave
 * nothing behind. Doubles that the area tests already drive (HermesClientTest, fakeHermes,
 * InboxTest, LedgerTest, LedgerFaulty, MemoryStoreTest, MemoryTest, DirectMemoryTest) are not
 * repeated here.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Effect, Exit, Layer, Option, Ref, Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import type { AgentCapabilities } from "../../src/domain/capabilities.ts"
import type { RunView } from "../../src/domain/runs/view.ts"
import { Caller, CallerTest } from "../../src/request/Caller.ts"
import { Progress, ProgressTest } from "../../src/request/Progress.ts"
import { Agents } from "../../src/services/agents/Agents.ts"
import { AgentsTest } from "../../src/services/agents/AgentsTest.ts"
import { Auth } from "../../src/services/auth/Auth.ts"
import { AuthTest } from "../../src/services/auth/AuthTest.ts"
import { BearerTokensTest } from "../../src/services/auth/BearerTokens.ts"
import { Capabilities } from "../../src/services/capabilities/Capabilities.ts"
import { CapabilitiesTest } from "../../src/services/capabilities/CapabilitiesTest.ts"
import { HermesStatus } from "../../src/hermes/client/failure.ts"
import { type ApprovalCall, HermesClientApprovals } from "../../src/hermes/client/HermesClientApprovals.ts"
import { HermesClient } from "../../src/hermes/client/HermesClient.ts"
import { InboxStore } from "../../src/services/inbox/InboxStore.ts"
import { InboxTest } from "../../src/services/inbox/InboxTest.ts"
import { InboxStoreTest } from "../../src/services/inbox/InboxStoreTest.ts"
import { pendingRunApproval } from "../../src/services/inbox/rows.ts"
import { Runs } from "../../src/services/runs/Runs.ts"
import { RunsTest } from "../../src/services/runs/RunsTest.ts"
import { SkillStore } from "../../src/services/skill-store/SkillStore.ts"
import { SkillStoreTest } from "../../src/services/skill-store/SkillStoreTest.ts"
import { Skills } from "../../src/services/skills/Skills.ts"
import { SkillsTest } from "../../src/services/skills/SkillsTest.ts"
import { testConfig } from "../support/daemon.ts"

const skillMd = (name: string) => `---\nname: ${name}\ndescription: Does one useful thing.\n---\n# Steps\n\n1. Do it.\n`

describe("the doubles beside the tags", () => {
  it.effect("AgentsTest lists what it was given and counts the reads", () =>
    Effect.gen(function* () {
      const reads = yield* Ref.make(0)
      const agents = [{ name: "pi" as const, runnable: false as const }]
      const listed = yield* Agents.list.pipe(Effect.zipLeft(Agents.list), Effect.provide(AgentsTest(agents, reads)))
      expect(listed).toEqual({ agents })
      expect(yield* Ref.get(reads)).toBe(2)
    }))

  it.effect("CapabilitiesTest answers from its table, refuses any other agent as unknown_agent, and records who was asked", () =>
    Effect.gen(function* () {
      const asked = yield* Ref.make<ReadonlyArray<string>>([])
      const caps = { agent: "hermes" } as unknown as AgentCapabilities
      const layer = CapabilitiesTest({ hermes: caps }, asked)
      expect(yield* Capabilities.forAgent("hermes").pipe(Effect.provide(layer))).toBe(caps)
      const unknown = yield* Effect.flip(Capabilities.forAgent("hermes/nope").pipe(Effect.provide(layer)))
      expect(unknown._tag).toBe("UnknownAgent")
      expect(yield* Ref.get(asked)).toEqual(["hermes", "hermes/nope"])
    }))

  it.effect("RunsTest answers the scripted calls; an unscripted one is a defect that names it", () =>
    Effect.gen(function* () {
      const layer = RunsTest({ status: (runId) => Effect.succeed({ run_id: runId } as unknown as RunView) })
      const runs = yield* Effect.provide(Runs, layer)
      expect(yield* runs.status("r1", 0).pipe(Effect.provideService(Caller, Caller.admin))).toEqual({ run_id: "r1" })
      const exit = yield* Effect.exit(runs.stop("r1").pipe(Effect.provideService(Caller, Caller.admin)))
      expect(Exit.isFailure(exit) && Cause.isDie(exit.cause)).toBe(true)
      expect(String(Exit.isFailure(exit) ? Cause.squash(exit.cause) : "")).toContain("Runs.stop is not scripted")
    }))

  it.effect("CallerTest is the caller it was given (the admin unless told); ProgressTest records each report in order", () =>
    Effect.gen(function* () {
      expect(yield* Effect.provide(Caller, CallerTest())).toEqual(Caller.admin)
      expect((yield* Effect.provide(Caller, CallerTest(Caller.client("alice")))).client).toBe("alice")
      const reports: Array<{ readonly progress: number; readonly message: string | undefined }> = []
      yield* Effect.gen(function* () {
        const progress = yield* Progress
        expect(progress.enabled).toBe(true)
        yield* progress.report(1, "one")
        yield* progress.report(2)
      }).pipe(Effect.provide(ProgressTest(reports)))
      expect(reports).toEqual([{ progress: 1, message: "one" }, { progress: 2, message: undefined }])
    }))

  it.effect("AuthTest is the real Auth on an in-memory database: a client added authenticates, and is listed", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const { key } = yield* auth.addClient("alice", ["agents"])
      expect(Option.map(yield* auth.authenticate(key), (c) => c.client)).toEqual(Option.some("alice"))
      expect(yield* auth.authenticate("hal0bk_not-a-key")).toEqual(Option.none())
      expect((yield* auth.listClients).map((c) => c.name)).toEqual(["alice"])
    }).pipe(Effect.provide(AuthTest.pipe(
      Layer.provide(AppConfigLive(testConfig({ bridge: { admin_key: "admin-key-for-the-auth-double-0123" } }))),
      Layer.provide(RedactorLive)
    ))))

  it.effect("BearerTokensTest answers the test's grants: Auth takes a token it knows as its OAuth client while that client is live", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const client = yield* auth.oauthClient("chatgpt", ["agents"], { kind: "oauth", client_id: "https://chatgpt.com/cimd", host: "chatgpt.com" })
      const known = yield* auth.authenticate("tok-known")
      expect(Option.map(known, (c) => [c.client, c.audience])).toEqual(Option.some([client.name, ["https://bridge.test/mcp/agents/mcp"]]))
      expect(yield* auth.authenticate("tok-unknown")).toEqual(Option.none())
      yield* auth.revoke(client.name)
      expect(yield* auth.authenticate("tok-known")).toEqual(Option.none())
    }).pipe(Effect.provide(AuthTest.pipe(
      Layer.provide(BearerTokensTest(new Map([["tok-known", { client: "chatgpt", audience: ["https://bridge.test/mcp/agents/mcp"], scopes: ["agents" as const] }]]))),
      Layer.provide(AppConfigLive(testConfig({ bridge: { admin_key: "admin-key-for-the-auth-double-0123" } }))),
      Layer.provide(RedactorLive)
    ))))

  it.effect("InboxTest decides by production's rule: a choice not offered is refused, a request Hermes no longer holds expires the row", () =>
    Effect.gen(function* () {
      const calls = yield* Ref.make<ReadonlyArray<ApprovalCall>>([])
      let answer: Effect.Effect<void, HermesStatus> = Effect.void
      const hermes = yield* Effect.provide(HermesClient, HermesClientApprovals(calls, () => answer))
      const inbox = yield* InboxTest(hermes)
      const open = (run: string) => inbox.shape.openRunApproval({
        run_id: run, client: "alice", agent: "hermes/coder", hermes_run_id: `h_${run}`, request_id: null, command: "rm -rf build", description: "d", choices: ["once", "deny"]
      })
      const a = yield* open("run_a")
      const refused = yield* Effect.flip(inbox.shape.decide(a.id, { approve: true, choice: "always", by: "operator" }))
      expect(refused._tag).toBe("InvalidInput")
      expect((yield* inbox.shape.decide(a.id, { approve: true, by: "operator" })).state).toBe("approved")
      expect((yield* Ref.get(calls)).map((c) => c.choice)).toEqual(["once"])
      answer = Effect.fail(new HermesStatus({ agent: "hermes/coder", route: "POST /v1/runs/{id}/approval", status: 409, code: "approval_not_pending", detail: null, retryAfter: Option.none() }))
      const b = yield* open("run_b")
      expect((yield* inbox.shape.decide(b.id, { approve: false, by: "operator" })).state).toBe("expired")
      expect((yield* Effect.flip(inbox.shape.decide(b.id, { approve: true, by: "operator" })))._tag).toBe("NoPendingRequest")
    }))

  it.effect("InboxStoreTest is the real inbox table on an in-memory database: a row written is read back", () =>
    Effect.gen(function* () {
      const store = yield* InboxStore
      const row = pendingRunApproval(
        { run_id: "run_1", client: "alice", agent: "hermes", hermes_run_id: "h_1", request_id: null, command: "ls", description: "list", choices: ["once", "deny"] },
        "apr_1",
        new Date(0).toISOString()
      )
      yield* store.insert(row)
      expect(Option.map(yield* store.get("apr_1"), (r) => r.state)).toEqual(Option.some("pending"))
      expect((yield* store.list("pending")).length).toBe(1)
    }).pipe(Effect.provide(InboxStoreTest)))

  it.effect("SkillStoreTest keeps its skills in a temp folder, which is gone once the layer is released", () =>
    Effect.gen(function* () {
      const scope = yield* Scope.make()
      const ctx = yield* Layer.buildWithScope(SkillStoreTest(), scope)
      const store = Effect.runSync(Effect.provide(SkillStore, Layer.succeedContext(ctx)))
      const root = path.dirname(store.dirs.dropinDir)
      expect(root.startsWith(os.tmpdir())).toBe(true)
      expect(fs.existsSync(root)).toBe(true)
      expect((yield* store.list).some((s) => s.source === "shipped")).toBe(true)
      yield* Scope.close(scope, Exit.void)
      expect(fs.existsSync(root)).toBe(false)
    }))

  it.scoped("SkillsTest is the real skill service: a put is recorded as a pending inbox row, and nothing is installed yet", () =>
    Effect.gen(function* () {
      const skills = yield* Skills
      const queued = yield* skills.put("double-check", skillMd("double-check"), undefined).pipe(Effect.provideService(Caller, Caller.client("alice")))
      expect(queued.status).toBe("pending_approval")
      const rows = yield* Effect.flatMap(InboxStore, (s) => s.list("pending"))
      expect(rows.map((r) => r.id)).toEqual([queued.approval_id])
      expect(Option.isNone(yield* Effect.flatMap(SkillStore, (s) => s.findDropin("double-check")))).toBe(true)
    }).pipe(Effect.provide(SkillsTest().pipe(Layer.provide(RedactorLive)))))
})
