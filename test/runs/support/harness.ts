/**
 * Builds the run service for a test: the real ledger over an in-memory SQLite database (or a double),
 * a fake Hermes, a fake inbox, the default Redactor and a config with a small per-client cap.
 * `build` can be called again over the same database to play a daemon restart.
 */
import type { SqlClient } from "@effect/sql"
import { Context, Effect, Either, Exit, Layer, Scope } from "effect"
import * as os from "node:os"
import { AppConfigLive } from "../../../src/config/AppConfig.ts"
import { loadConfig, type ResolvedConfig } from "../../../src/config/load.ts"
import type { BridgeError } from "../../../src/domain/errors.ts"
import type { RunStatus } from "../../../src/domain/runs/view.ts"
import { Caller, type CallerShape } from "../../../src/request/Caller.ts"
import { Lifecycle, type Phase, LifecycleAt } from "../../../src/common/Lifecycle.ts"
import { Progress } from "../../../src/request/Progress.ts"
import { Redactor, RedactorLive } from "../../../src/common/Redactor.ts"
import type { RunsShape } from "../../../src/services/runs/Runs.ts"
import { Ledger } from "../../../src/services/runs/Ledger.ts"
import { LedgerLive } from "../../../src/services/runs/LedgerSql.ts"
import { makeRuns } from "../../../src/services/runs/RunsLive.ts"
import { ChangeFeedBump, ChangeFeedTest } from "../../../src/storage/ChangeFeed.ts"
import { type FakeHermes, makeFakeHermes, type FakeOptions } from "../../../src/hermes/client/fakeHermes.ts"
import { InboxTest } from "../../../src/services/inbox/InboxTest.ts"

export const testRunsConfig = (maxRuns = 3, retentionDays = 7, quietCheckMs?: number, env: Readonly<Record<string, string>> = {}): ResolvedConfig => {
  const loaded = loadConfig({
    env: {
      ...env,
      AGENT_BRIDGE_BRIDGE_MAX_CONCURRENT_RUNS_PER_CLIENT: String(maxRuns),
      AGENT_BRIDGE_BRIDGE_RUN_RETENTION_DAYS: String(retentionDays),
      ...(quietCheckMs === undefined ? {} : { AGENT_BRIDGE_HERMES_QUIET_CHECK_MS: String(quietCheckMs) })
    },
    cwd: os.tmpdir()
  })
  if (Either.isLeft(loaded)) throw new Error(loaded.left.message)
  return loaded.right
}

export interface HarnessOptions extends FakeOptions {
  readonly maxRuns?: number
  readonly retentionDays?: number
  /** `hermes.quiet_check_ms` (default 10 s): a test that moves the clock by days raises it, or every quiet run is checked 8,640 times a day. */
  readonly quietCheckMs?: number
  /** Replaces the SQLite ledger (e.g. a failing double). */
  readonly ledger?: Layer.Layer<Ledger, never, SqlClient.SqlClient>
  readonly phase?: Phase
  /** More configuration, as `AGENT_BRIDGE_*` variables (e.g. the queue's keys). */
  readonly env?: Readonly<Record<string, string>>
}

export interface Built {
  readonly runs: RunsShape
  readonly supervisor: Effect.Effect.Success<typeof makeRuns>["supervisor"]
  readonly signals: Effect.Effect.Success<typeof makeRuns>["signals"]
  readonly lifecycle: Lifecycle["Type"]
  readonly redactor: Redactor["Type"]
  /** "Another process committed", by hand (the change feed's double). */
  readonly otherProcess: ChangeFeedBump["Type"]
  /** The ledger the service writes (for a test that reads what no view shows). */
  readonly ledger: Ledger["Type"]
}

/** Builds the service in `scope`; closing the scope is a daemon shutdown. */
export const buildRuns = (hermes: FakeHermes, inbox: Effect.Effect.Success<ReturnType<typeof InboxTest>>, options: HarnessOptions, scope: Scope.Scope) =>
  Effect.gen(function* () {
    const deps = Layer.mergeAll(
      hermes.layer,
      inbox.layer,
      RedactorLive,
      AppConfigLive(testRunsConfig(options.maxRuns, options.retentionDays, options.quietCheckMs, {
        // The bridge's capacity is the fake Hermes's cap unless the test sets it.
        ...(options.maxConcurrent === undefined ? {} : { AGENT_BRIDGE_HERMES_MAX_CONCURRENT_RUNS: String(options.maxConcurrent) }),
        ...options.env
      })),
      LifecycleAt(options.phase ?? "ready"),
      // Another process's commits are what a test says (ChangeFeedBump in the built context).
      ChangeFeedTest,
      options.ledger ?? LedgerLive
    )
    const context = yield* Layer.buildWithScope(deps, scope)
    const made = yield* makeRuns.pipe(Effect.provide(context), Scope.extend(scope))
    return { runs: made.runs, supervisor: made.supervisor, signals: made.signals, lifecycle: Context.get(context, Lifecycle), redactor: Context.get(context, Redactor), otherProcess: Context.get(context, ChangeFeedBump), ledger: Context.get(context, Ledger) } satisfies Built
  })

export const harness = (options: HarnessOptions = {}) =>
  Effect.gen(function* () {
    const hermes = yield* makeFakeHermes(options)
    const inbox = yield* InboxTest(hermes.shape)
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const built = yield* buildRuns(hermes, inbox, options, scope)
    return { ...built, hermes, inbox, scope, options }
  })

export const as = (caller: CallerShape | string) => <A, E, R>(e: Effect.Effect<A, E, R>) =>
  e.pipe(
    Effect.provideService(Caller, typeof caller === "string" ? Caller.client(caller) : caller),
    Effect.provideService(Progress, { enabled: false, report: () => Effect.void })
  )

/**
 * How long `eventually` and `eventuallyUnderTestClock` poll before they fail: a bound for a hung
 * condition, not a speed goal. Counted in wall time, not in rounds: on a loaded machine (users run
 * the suite on busy laptops) a read on PostgreSQL takes many times longer than on a quiet one, and
 * 1,000 rounds of 10 ms once ran out while the condition was still on its way.
 */
const EVENTUALLY_MS = 60_000
const EVENTUALLY_ROUNDS = 6_000

const pollUntil = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: string, pause: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const deadline = Date.now() + EVENTUALLY_MS
    for (let i = 0; i < EVENTUALLY_ROUNDS && Date.now() < deadline; i++) {
      const a = yield* read
      if (done(a)) return a
      yield* pause
    }
    return yield* Effect.dieMessage(`timed out waiting for ${what}`)
  })

/** Polls `read` until `done` holds (real clock; generous bound), returning the last value. */
export const eventually = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean, what = "condition") =>
  pollUntil(read, done, what, Effect.sleep("10 millis"))

/**
 * `eventually` for a test on the TestClock, where `Effect.sleep` stands still: pauses on the event
 * loop instead. What a clock step set off (a sweep, a quiet check) reaches the database there: at
 * once for the in-memory SQLite, a few round trips later for PostgreSQL.
 */
export const eventuallyUnderTestClock = <A, E, R>(read: Effect.Effect<A, E, R>, done: (a: A) => boolean, what = "condition") =>
  pollUntil(read, done, what, Effect.promise(() => new Promise<void>((r) => setTimeout(r, 10))))

export const statusIs = (...s: ReadonlyArray<RunStatus>) => (v: { readonly status: RunStatus }) => s.includes(v.status)

/** The error a failed call raised (fails the test if it succeeded). */
export const failure = <A, R>(e: Effect.Effect<A, BridgeError, R>) =>
  Effect.flip(e).pipe(Effect.catchAllDefect((d) => Effect.dieMessage(`expected a typed failure, got a defect: ${String(d)}`)))
