/**
 * A stray rejected promise is logged and the daemon goes on; without the listener Node ends the
 * process (what the listener exists to prevent).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Logger, Scope, Exit } from "effect"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { logStrayRejection, StrayRejectionsLogged } from "../../src/daemon/strayRejections.ts"
import { runProcess } from "../support/runProcess.ts"

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")
const child = (...args: Array<string>) =>
  runProcess(process.execPath, ["--import", "tsx", path.join(REPO, "test/support/strayRejectionChild.ts"), ...args], {
    cwd: REPO,
    timeoutMs: 60_000
  })

describe("stray rejections", () => {
  it.effect("are logged as errors with their cause", () =>
    Effect.gen(function* () {
      const lines: Array<string> = []
      const capture = Logger.replace(Logger.defaultLogger, Logger.make((o) => void lines.push(Logger.logfmtLogger.log(o))))
      const runtime = yield* Effect.runtime<never>().pipe(Effect.provide(capture))
      logStrayRejection(runtime)(new Error("the stream was already closed"))
      yield* Effect.yieldNow()
      expect(lines.length).toBe(1)
      expect(lines[0]).toMatch(/level=ERROR/)
      expect(lines[0]).toContain("nobody waiting")
      expect(lines[0]).toContain("the stream was already closed")
    }))

  it.effect("the layer adds one listener and removes it when the daemon stops", () =>
    Effect.gen(function* () {
      const before = process.listenerCount("unhandledRejection")
      const scope = yield* Scope.make()
      yield* Layer.buildWithScope(StrayRejectionsLogged, scope)
      expect(process.listenerCount("unhandledRejection")).toBe(before + 1)
      yield* Scope.close(scope, Exit.void)
      expect(process.listenerCount("unhandledRejection")).toBe(before)
    }))

  it("a process with the listener survives a stray rejection; one without it does not", async () => {
    const guarded = await child("guarded")
    expect(guarded.stdout).toContain("still running")
    expect(guarded.stdout + guarded.stderr).toContain("nobody is waiting for this")
    expect(guarded.status).toBe(0)
    const bare = await child()
    expect(bare.stdout).not.toContain("still running")
    expect(bare.status).not.toBe(0)
  }, 90_000)
})
