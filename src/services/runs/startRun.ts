/**
 * `agent_run`'s start path, in the documented order (docs/REFERENCE.md): agent → keys → idempotency (answered from the ledger, or from the start
 * with that key in flight, before the cap) → per-client cap → Hermes start → ledger insert. A failed
 * insert after Hermes accepted stops the Hermes run and answers `bridge.store_unavailable`.
 */
import { Effect, Either, Exit, Fiber, Option, type Scope } from "effect"
import { randomBytes } from "node:crypto"
import { AgentUnkeyed, IdempotencyConflict, type Internal, StoreUnavailable, TooManyQueued, TooManyRuns } from "../../domain/errors.ts"
import { fingerprint } from "../../domain/runs/fingerprint.ts"
import { validateKey } from "../../domain/runs/keys.ts"
import type { HermesClientShape, HermesProfile, StartRunResult } from "../../hermes/client/HermesClient.ts"
import type { CallerShape } from "../../request/Caller.ts"
import { bridgeHermes } from "../hermes-failures/bridgeHermes.ts"
import type { Admission } from "./admission.ts"
import { makeHermesStart } from "./hermesStart.ts"
import type { StartRunInput } from "./Runs.ts"
import { ledgerFailureText, type LedgerShape, type RunRecord } from "./Ledger.ts"
import { makeSingleFlight } from "./singleFlight.ts"

/** The key Hermes sees for the n-th attempt of a start (the first is the key itself). */
export { attemptKey } from "./hermesStart.ts"

/** A bridge run id: `run_` + 32 hex, minted here (Hermes's id is kept beside it). */
export const mintRunId = (): string => `run_${randomBytes(16).toString("hex")}`

export interface StartDeps {
  readonly ledger: LedgerShape
  readonly hermes: HermesClientShape
  readonly maxRunsPerClient: number
  /** `bridge.max_queued_runs_per_client`. */
  readonly maxQueuedPerClient: number
  /** Whether a start may go to Hermes now, or waits in the queue (`admission.ts`). */
  readonly admission: Admission
  /** Starts following a freshly recorded run. */
  readonly attach: (runId: string, options: { readonly fresh: boolean }) => Effect.Effect<void>
  /** Maps an unexpected ledger failure to `bridge.internal` (logged under an incident), the database server's outage to `bridge.store_unavailable`. */
  readonly internal: (operation: string, cause: unknown) => Effect.Effect<never, Internal | StoreUnavailable>
  /** The service's scope: a start runs to its end there even when its caller goes away. */
  readonly scope: Scope.Scope
}

export const makeStart = (deps: StartDeps) => {
  const { ledger, hermes, maxRunsPerClient, maxQueuedPerClient, admission, attach, internal, scope } = deps
  const startInHermes = makeHermesStart(hermes)
  const bridge = bridgeHermes(hermes)
  /** Starts in flight per client (between the cap check and the insert), so racing starts share the cap. */
  const inFlight = new Map<string, number>()
  const reserve = (client: string, delta: number) =>
    Effect.sync(() => {
      const n = (inFlight.get(client) ?? 0) + delta
      if (n <= 0) inFlight.delete(client)
      else inFlight.set(client, n)
    })

  const tooMany = (caller: CallerShape) =>
    new TooManyRuns({
      message: `${caller.client} already has ${maxRunsPerClient} unfinished runs (bridge.max_concurrent_runs_per_client)`
    })

  /** The run recorded under this key, if any (a failed read counts as none: the cap's answer stands). */
  const recordedUnder = (profile: HermesProfile, idempotencyKey: string) =>
    ledger.byIdempotencyKey(profile.name, idempotencyKey).pipe(Effect.orElseSucceed(Option.none<RunRecord>))

  const conflict = () =>
    new IdempotencyConflict({ message: "this idempotency_key was already used for a different request" })

  /** The stored run for this key: the same request gets it back; anything else conflicts. */
  const replay = (caller: CallerShape, existing: RunRecord, fp: string) =>
    existing.client === caller.client && existing.fingerprint === fp ? Effect.succeed(existing) : Effect.fail(conflict())

  const stopQuietly = (profile: HermesProfile, hermesRunId: string) =>
    bridge.stop(profile, hermesRunId).pipe(
      Effect.catchAll((e) => Effect.logError("could not stop a Hermes run the ledger failed to record", e)),
      Effect.annotateLogs({ hermesRunId })
    )

  /**
   * The cap check, Hermes start, ledger insert and follow of a new run. They run in a fiber of the
   * service, which the caller only awaits: a client that cancels (or drops) its call while Hermes
   * accepts the run would otherwise leave that run going in Hermes with no ledger row, or recorded
   * but unfollowed.
   */
  const recordNew = (
    caller: CallerShape,
    profile: HermesProfile,
    input: StartRunInput,
    sessionKey: string | undefined,
    idempotencyKey: string | undefined,
    fp: string
  ) =>
    Effect.acquireUseRelease(
      reserve(caller.client, 1),
      () =>
        Effect.gen(function* () {
          const active = yield* ledger.countActive(caller.client).pipe(Effect.catchTag("LedgerError", (e) => internal("count", e)))
          const othersStarting = (inFlight.get(caller.client) ?? 1) - 1
          if (active + othersStarting >= maxRunsPerClient) {
            // A start with this key on another replica may have recorded its run since our lookup,
            // and that run is what fills the cap: the retry is answered with it, not refused.
            const recorded = idempotencyKey === undefined ? Option.none<RunRecord>() : yield* recordedUnder(profile, idempotencyKey)
            if (Option.isSome(recorded)) return yield* replay(caller, recorded.value, fp)
            return yield* tooMany(caller)
          }
          const fields = { caller, profile, input, sessionKey, idempotencyKey, fp }
          return yield* admission.direct(
            profile.name,
            Effect.gen(function* () {
              const started = yield* startInHermes(profile, {
                input: input.input,
                instructions: input.instructions,
                sessionKey,
                idempotencyKey,
                reasoningEffort: input.reasoning_effort
              }).pipe(Effect.either)
              if (Either.isRight(started)) return yield* recordStarted(fields, started.right)
              const e = started.left
              if (e._tag !== "NotAdmitted") return yield* Effect.fail(e)
              // Hermes has no capacity now (nothing started): the run waits in the queue.
              const load = yield* ledger.profileLoad(profile.name).pipe(Effect.orElseSucceed(() => ({ live: 0, queued: 0 })))
              yield* admission.refused(profile.name, e.retryAfterMs, load.live)
              return yield* recordQueued(fields, "refused")
            }),
            recordQueued(fields, "capacity")
          )
        }),
      () => reserve(caller.client, -1)
    )

  interface Fields {
    readonly caller: CallerShape
    readonly profile: HermesProfile
    readonly input: StartRunInput
    readonly sessionKey: string | undefined
    readonly idempotencyKey: string | undefined
    readonly fp: string
  }

  /** What a run's ledger row takes from the start request, queued or started alike. */
  const runFields = ({ caller, profile, input, sessionKey, idempotencyKey, fp }: Fields) => ({
    client: caller.client,
    agent: profile.agent,
    profile: profile.name,
    input: input.input,
    instructions: input.instructions ?? null,
    sessionKey: sessionKey ?? null,
    reasoningEffort: input.reasoning_effort ?? null,
    idempotencyKey: idempotencyKey ?? null,
    fingerprint: fp,
    face: input.face ?? "mcp"
  })

  /**
   * A start that waits for Hermes's capacity: recorded `queued` (no Hermes run id yet) with a
   * `run.queued` event, under the client's queue cap. `reason`: the profile was at capacity, or
   * Hermes refused the start (429, 503 `gateway_draining`).
   */
  const recordQueued = ({ caller, profile, input, sessionKey, idempotencyKey, fp }: Fields, reason: "capacity" | "refused") =>
    Effect.gen(function* () {
      const outcome = yield* ledger.insert({
        ...runFields({ caller, profile, input, sessionKey, idempotencyKey, fp }),
        runId: mintRunId(),
        hermesRunId: "",
        status: "queued",
        started: { type: "run.queued", data: { agent: profile.agent, reason } },
        maxQueued: maxQueuedPerClient
      }).pipe(Effect.either)
      if (Either.isRight(outcome)) {
        yield* admission.kick
        return outcome.right
      }
      const e = outcome.left
      if (e._tag === "IdempotencyTaken" && idempotencyKey !== undefined) {
        const winner = yield* ledger.byIdempotencyKey(profile.name, idempotencyKey).pipe(Effect.orElseSucceed(Option.none))
        if (Option.isSome(winner)) return yield* replay(caller, winner.value, fp)
      }
      if (e._tag === "ClientQueueFull" || e._tag === "ClientAtCap") {
        return yield* new TooManyQueued({
          message: `${profile.agent} is at capacity and ${caller.client} already has ${maxQueuedPerClient} runs queued (bridge.max_queued_runs_per_client)`
        })
      }
      return yield* internal("insert", e._tag === "LedgerError" ? e : new Error("idempotency key taken by a run that could not be read"))
    })

  /** The ledger insert and follow of a run Hermes started. */
  const recordStarted = ({ caller, profile, input, sessionKey, idempotencyKey, fp }: Fields, started: StartRunResult) =>
        Effect.gen(function* () {
          const runId = mintRunId()
          const outcome = yield* ledger.insert({
            ...runFields({ caller, profile, input, sessionKey, idempotencyKey, fp }),
            runId,
            hermesRunId: started.hermesRunId,
            // Hermes answered "started".
            status: "running",
            started: { type: "run.started", data: { agent: profile.agent, replayed: started.replayed } },
            maxActive: maxRunsPerClient
          }).pipe(Effect.either)
          if (Either.isRight(outcome)) {
            yield* attach(runId, { fresh: true })
            return outcome.right
          }
          if (outcome.left._tag === "IdempotencyTaken" && idempotencyKey !== undefined) {
            // A concurrent start with the same key won the race: answer with its run.
            const winner = yield* ledger.byIdempotencyKey(profile.name, idempotencyKey).pipe(Effect.orElseSucceed(Option.none))
            if (Option.isSome(winner)) {
              if (winner.value.hermesRunId !== started.hermesRunId) yield* stopQuietly(profile, started.hermesRunId)
              return yield* replay(caller, winner.value, fp)
            }
          }
          if (outcome.left._tag === "ClientAtCap") {
            // Another replica's start filled the cap between our count and the insert. A replayed
            // Hermes run is another start's with this key (it records or stops it): not ours to stop.
            if (!started.replayed) yield* stopQuietly(profile, started.hermesRunId)
            return yield* tooMany(caller)
          }
          // A replay under a key whose row exists is the recorded run of another start: not ours to stop.
          const another = outcome.left._tag === "IdempotencyTaken" && started.replayed
          yield* Effect.logError(
            another ? "the ledger could not answer for a run another start recorded" : "the ledger could not record a run Hermes accepted; stopping it",
            outcome.left._tag === "LedgerError" ? ledgerFailureText(outcome.left) : "idempotency key taken by a run that could not be read"
          )
          if (!another) yield* stopQuietly(profile, started.hermesRunId)
          return yield* new StoreUnavailable({
            message: "the run ledger could not record the run Hermes accepted; the bridge asked Hermes to stop it"
          })
        })

  /** Starts with one idempotency key in flight at once: the later ones wait for the first's answer. */
  const flights = makeSingleFlight<RunRecord, Effect.Effect.Error<ReturnType<typeof recordNew>>>()
  /** A joiner whose request differs from a leader that failed tries again itself, this many times. */
  const MAX_FLIGHT_ROUNDS = 3

  return (caller: CallerShape, input: StartRunInput) =>
    Effect.gen(function* () {
      const profile = yield* bridge.profile(input.agent)
      if (Option.isNone(profile.key)) {
        return yield* new AgentUnkeyed({ message: `the bridge holds no API key for ${profile.agent}` })
      }
      const sessionKey = yield* validateKey("session_key", caller.client, input.session_key)
      const idempotencyKey = yield* validateKey("idempotency_key", caller.client, input.idempotency_key)
      const fp = fingerprint(input)
      const fresh = recordNew(caller, profile, input, sessionKey, idempotencyKey, fp)
      if (idempotencyKey === undefined) return yield* Effect.forkIn(fresh, scope).pipe(Effect.flatMap(Fiber.join))

      // A used key is answered from the ledger before the cap is checked; a key whose start is in
      // flight is answered with that start's outcome, so a burst of retries is one start and never
      // refused by the cap that start itself fills.
      const lookup = ledger.byIdempotencyKey(profile.name, idempotencyKey).pipe(
        Effect.catchTag("LedgerError", (e) => internal("idempotency lookup", e))
      )
      const keyed = (round: number): Effect.Effect<RunRecord, Effect.Effect.Error<typeof fresh>> =>
        Effect.gen(function* () {
          const existing = yield* lookup
          if (Option.isSome(existing)) return yield* replay(caller, existing.value, fp)
          // The leader looks again under its claim: a flight that ended between the lookup above and
          // the claim has its run in the ledger by now.
          const lead = Effect.flatMap(lookup, (again) => (Option.isSome(again) ? Effect.succeed(again.value) : fresh))
          const f = yield* flights.flight(`${profile.name}\n${idempotencyKey}`, fp, lead, scope)
          if (Exit.isSuccess(f.exit)) return yield* replay(caller, f.exit.value, fp)
          // The same request shares the leader's failure (it would meet the same one); a different
          // request with the key was never answered, so it tries itself.
          if (f.led || f.leaderTag === fp || round + 1 >= MAX_FLIGHT_ROUNDS) return yield* Effect.failCause(f.exit.cause)
          return yield* keyed(round + 1)
        })
      return yield* keyed(0)
    })
}
