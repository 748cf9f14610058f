/**
 * The HermesClient over @effect/platform's undici HttpClient: `makeHermesClient` builds one for a
 * list of profiles over an undici dispatcher (its event streams over the same dispatcher with a body
 * timeout, streamDispatcher.ts); `HermesClientWith` is that as a Layer with its own dispatcher (tests, tools); and
 * `HermesClientLive` is the daemon's, with profiles from the config or the embedded simulator and
 * every Hermes key registered with the Redactor.
 */
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Context, Duration, Effect, Layer, Option, Redacted, Schedule, Stream } from "effect"
import { AppConfig } from "../../config/AppConfig.ts"
import { Redactor } from "../../common/Redactor.ts"
import { HermesEmbedded, HermesEmbeddedForTools } from "../embedded.ts"
import { HermesProfiles } from "../profiles.ts"
import type { HermesFailure } from "./failure.ts"
import { makeFeatureCache } from "./features.ts"
import { type FollowDeps, type FollowSettings, followRun, followRunInto } from "./follow.ts"
import {
  findProfile, type FollowOptions, HermesClient, type HermesClientShape, type HermesEvent, type HermesFeatures, type HermesProfile
} from "./HermesClient.ts"
import { makeHermesHttp } from "./http.ts"
import { fetchFeatures, makeOperations } from "./operations.ts"
import { withBodyIdleTimeout } from "./streamDispatcher.ts"
import { followReconnectSchedule } from "./schedules.ts"

export interface HermesClientOptions {
  /** Per request (for event streams: until the headers arrive). Default 30 s (`hermes.timeout_ms`). */
  readonly timeout?: Duration.DurationInput | undefined
  /** How long a profile's capabilities are trusted before they are asked again. Default 60 s. */
  readonly featuresTtl?: Duration.DurationInput | undefined
  /** An event stream silent this long (keepalives included) counts as broken. Default 90 s. */
  readonly streamIdleTimeout?: Duration.DurationInput | undefined
  /** Backoff for `follow`'s reconnects and outage polling. Default `followReconnectSchedule`. */
  readonly reconnectSchedule?: Schedule.Schedule<HermesFailure, HermesFailure> | undefined
  /** `follow`'s default status poll interval. Default 1 s. */
  readonly pollInterval?: Duration.DurationInput | undefined
}

export const makeHermesClient = (
  profiles: ReadonlyArray<HermesProfile>,
  options: HermesClientOptions = {}
): Effect.Effect<HermesClientShape, never, NodeHttpClient.Dispatcher> =>
  Effect.gen(function* () {
    const dispatcher = yield* NodeHttpClient.Dispatcher
    const timeout = Duration.decode(options.timeout ?? "30 seconds")
    const streamIdleTimeout = Duration.decode(options.streamIdleTimeout ?? "90 seconds")
    const http = makeHermesHttp(NodeHttpClient.makeUndici(dispatcher), timeout)
    // Event streams share the connection pool; only their bodies are watched for silence.
    const streams = makeHermesHttp(NodeHttpClient.makeUndici(withBodyIdleTimeout(dispatcher, streamIdleTimeout)), timeout)
    const byName = new Map(profiles.map((p) => [p.name, p]))
    const cache = yield* makeFeatureCache(
      (name: string) => {
        const p = byName.get(name)
        return p === undefined ? Effect.die(`no profile ${name}`) : fetchFeatures(http, p)
      },
      options.featuresTtl ?? "60 seconds"
    )
    // What the last stream read of each profile showed: numbered frames (`id:`) or not. It is the
    // one sign of event replay (capabilities do not list it), so `features` reports it from here.
    const numbered = new Map<string, boolean>()
    const sawFrame = (p: HermesProfile) => (e: HermesEvent) => Effect.sync(() => numbered.set(p.name, e.id !== null))
    // Configured profiles go through the cache; a profile built elsewhere (tests) is asked directly.
    const features = (p: HermesProfile): Effect.Effect<HermesFeatures, HermesFailure> =>
      (byName.get(p.name) === p ? cache.get(p.name) : fetchFeatures(http, p)).pipe(
        Effect.map((f) => ({ ...f, eventReplay: numbered.get(p.name) ?? null }))
      )
    // `readEvents` stays inside: the client's subscriptions are `events`, `follow` and `followInto`
    // (which `withoutSubscriptions` refuses), each with the frame tap below.
    const { readEvents, ...ops } = makeOperations({ http, features, streams, streamIdleTimeout })
    const reconnect = options.reconnectSchedule ?? followReconnectSchedule
    const defaultPoll = Duration.decode(options.pollInterval ?? "1 second")

    const followDeps = (p: HermesProfile, runId: string, o: FollowOptions | undefined): FollowDeps => ({
      runId,
      readEvents: (lastId, onEvent) => readEvents(p, runId, lastId, (e) => Effect.zipRight(sawFrame(p)(e), onEvent(e))),
      // Built when asked: the request's effect, made up front, would stay with every parked run's follow.
      status: Effect.suspend(() => ops.status(p, runId)),
      profile: p.name,
      agent: p.agent,
      schedule: o?.giveUpAfter === undefined ? reconnect : reconnect.pipe(Schedule.upTo(o.giveUpAfter))
    })
    const followSettings = (o: FollowOptions | undefined): FollowSettings => ({
      lastEventId: o?.lastEventId ?? null,
      receivedText: o?.receivedText ?? "",
      pollInterval: o?.pollInterval === undefined ? defaultPoll : Duration.decode(o.pollInterval),
      onReattach: o?.onReattach
    })

    // Every plain operation as it is; only those that take the client's own state are wrapped here.
    return {
      ...ops,
      profiles,
      profile: (agent) => findProfile(profiles, agent),
      features,
      events: (p, runId, lastEventId) => ops.events(p, runId, lastEventId ?? null).pipe(Stream.tap(sawFrame(p))),
      follow: (p, runId, o) => followRun(followDeps(p, runId, o), followSettings(o)),
      followInto: (p, runId, o, emit) => followRunInto(followDeps(p, runId, o), followSettings(o), emit)
    } satisfies HermesClientShape
  })

/** A HermesClient over these profiles with its own undici HTTP client (tests, CLI tools). */
export const HermesClientWith = (profiles: ReadonlyArray<HermesProfile>, options: HermesClientOptions = {}): Layer.Layer<HermesClient> =>
  Layer.effect(HermesClient, makeHermesClient(profiles, options)).pipe(Layer.provide(NodeHttpClient.dispatcherLayer))

/**
 * The daemon's HermesClient: profiles from `HermesProfiles` (config, or the embedded simulator
 * when no Hermes is configured), the configured timeout, and every key registered with the
 * Redactor so no text leaving the bridge can carry one. Also provides `HermesProfiles` and
 * `SimulatorInfo` (the banner's simulator URL).
 */
const configuredClient = Layer.effect(
  HermesClient,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const redactor = yield* Redactor
    const profiles = yield* HermesProfiles
    for (const p of profiles) {
      if (Option.isSome(p.key)) yield* redactor.registerSecret(Redacted.value(p.key.value))
    }
    return yield* makeHermesClient(profiles, { timeout: Duration.millis(config.hermes.timeout_ms) })
  })
).pipe(Layer.provide(NodeHttpClient.dispatcherLayer))

export const HermesClientLive = configuredClient.pipe(Layer.provideMerge(HermesEmbedded))

/**
 * A client that never opens a run's event stream: the daemon's follower holds the one subscription
 * of each run. Hermes 0.20 gives a second concurrent subscriber 200 and splits the frames between
 * the two, so a CLI that subscribed would take text from the daemon's follow.
 */
export const withoutSubscriptions = (client: HermesClientShape): HermesClientShape => {
  const refused = () => Stream.die(new Error("this process never subscribes to a run's events: the daemon's follower holds the one subscription"))
  return { ...client, events: refused, follow: refused, followInto: () => Stream.runDrain(refused()) }
}

/**
 * The same for the CLI's `inbox`, `runs` and `doctor`: with no Hermes configured, the running daemon's
 * simulator (where its runs are) rather than a new, empty one; and never a subscription.
 */
export const HermesClientForTools = configuredClient.pipe(
  Layer.provideMerge(HermesEmbeddedForTools),
  Layer.map((ctx) => Context.add(ctx, HermesClient, withoutSubscriptions(Context.get(ctx, HermesClient))))
)
