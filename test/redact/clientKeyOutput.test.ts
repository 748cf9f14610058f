/**
 * A client key in a run's output without its `hal0bk_` prefix (a program that printed the body, a
 * URL that carries it) is masked on every read path (status, wait, list, events pages of every
 * size), live and finished, streamed in 3-character deltas: a key made in this process at once; a
 * key the CLI made (another Auth and Redactor over the same store) from its first authentication,
 * and then even in the views of a finished run that were made and kept before it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { RedactorLive, Redactor } from "../../src/common/Redactor.ts"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { BRIDGE_KEY_PREFIX } from "../../src/domain/bridgeKeys.ts"
import { Caller } from "../../src/request/Caller.ts"
import { Auth, AuthLive } from "../../src/services/auth/Auth.ts"
import { ChangeFeedTest } from "../../src/storage/ChangeFeed.ts"
import { TestDb } from "../support/testDb.ts"
import { as, eventually, harness } from "../runs/support/harness.ts"
import { testConfig } from "../support/daemon.ts"
import { leakFinder } from "./corpus.ts"

const alice = as("alice")
const admin = as(Caller.admin)
const config = testConfig()

describe("a client key printed without its prefix", () => {
  it.live("is masked on every read path, live and finished, from when this process sees the key", () =>
    Effect.gen(function* () {
      const h = yield* harness({ maxRuns: 3 })
      // The daemon's Auth shares the run service's Redactor; the CLI's has its own, as in its own process.
      const daemonAuth = AuthLive.pipe(Layer.provide(Layer.mergeAll(AppConfigLive(config), Layer.succeed(Redactor, h.redactor), ChangeFeedTest)))
      const cliAuth = AuthLive.pipe(Layer.provide(Layer.mergeAll(AppConfigLive(config), RedactorLive, ChangeFeedTest)))
      const auth = Context.get(yield* Layer.build(daemonAuth), Auth)
      const cli = Context.get(yield* Layer.build(cliAuth), Auth)

      const problems: Array<string> = []
      const readAll = (label: string, runId: string, lastSeq: number, leak: (s: string) => string | undefined) =>
        Effect.gen(function* () {
          const look = (what: string, value: unknown) => {
            const found = leak(JSON.stringify(value))
            if (found !== undefined) problems.push(`${label}, ${what}: leaks ${JSON.stringify(found)}`)
          }
          look("status", yield* alice(h.runs.status(runId, 0)))
          look("wait", yield* alice(h.runs.wait(runId, 0)))
          look("list", yield* admin(h.runs.list({ limit: 100 })))
          for (const size of [1, 2, 3, 5, 100]) {
            for (let since = 0; since < lastSeq; since += size) look(`events(${since}, ${size})`, yield* alice(h.runs.events(runId, since, size)))
          }
        })
      /** A run whose output streams `key`'s body in 3-character deltas; read live, then finished. */
      const streamBody = (label: string, key: string, n: number) =>
        Effect.gen(function* () {
          const body = key.slice(BRIDGE_KEY_PREFIX.length)
          expect(body.length).toBeGreaterThan(40)
          const view = yield* alice(h.runs.start({ agent: "hermes", input: label }))
          const hid = [...h.hermes.runs.keys()][n]!
          for (const d of `the config holds ${body} as its token. done.`.match(/[\s\S]{1,3}/g)!) yield* h.hermes.emit(hid, "message.delta", { delta: d })
          const live = yield* eventually(alice(h.runs.status(view.run_id, 0)), (v) => v.output?.endsWith("done.") === true, "all text")
          return { runId: view.run_id, live, hid, leak: leakFinder(body) }
        })

      const { key: madeHere } = yield* auth.addClient("made-here", ["agents"])
      const here = yield* streamBody("made here", madeHere, 0)
      yield* readAll("made here (live)", here.runId, here.live.last_seq, here.leak)
      yield* h.hermes.complete(here.hid)
      yield* readAll("made here (completed)", here.runId, (yield* alice(h.runs.wait(here.runId, 30))).last_seq, here.leak)

      const { key: madeByCli } = yield* cli.addClient("made-by-cli", ["agents"])
      const elsewhere = yield* streamBody("made by the CLI", madeByCli, 1)
      yield* h.hermes.complete(elsewhere.hid)
      const done = yield* alice(h.runs.wait(elsewhere.runId, 30))
      // Read (and kept) before the daemon has seen the key: only a digest is stored.
      const before = yield* alice(h.runs.status(elsewhere.runId, 0))
      expect(before.output).toContain(madeByCli.slice(BRIDGE_KEY_PREFIX.length))
      expect((yield* auth.authenticate(madeByCli))._tag).toBe("Some")
      yield* readAll("made by the CLI, after it authenticated (completed)", elsewhere.runId, done.last_seq, elsewhere.leak)
      expect(problems.slice(0, 20)).toEqual([])
    }).pipe(Effect.scoped, Effect.provide(TestDb)), 120_000)
})
