/**
 * The HermesClient as the services see it: every adapter error mapped to the bridge's, through the
 * one mapping (`services/hermes-failures/hermesErrors.ts`) with each operation's list of specific errors. Client
 * tests that check the bridge's codes, statuses and messages go through this, so they check the
 * client and the mapping together, exactly as a service call does.
 */
import { Effect, Stream } from "effect"
import type { HermesClientShape } from "../../../src/hermes/client/HermesClient.ts"
import { HERMES_RAISES, hermesError, unknownProfile } from "../../../src/services/hermes-failures/hermesErrors.ts"

export const servicesView = (h: HermesClientShape) => ({
  profiles: h.profiles,
  profile: (agent: string) => h.profile(agent).pipe(Effect.mapError(unknownProfile)),
  health: (...a: Parameters<HermesClientShape["health"]>) => h.health(...a).pipe(Effect.mapError(hermesError())),
  models: (...a: Parameters<HermesClientShape["models"]>) => h.models(...a).pipe(Effect.mapError(hermesError())),
  features: (...a: Parameters<HermesClientShape["features"]>) => h.features(...a).pipe(Effect.mapError(hermesError())),
  start: (...a: Parameters<HermesClientShape["start"]>) => h.start(...a).pipe(Effect.mapError(hermesError(HERMES_RAISES.start))),
  status: (...a: Parameters<HermesClientShape["status"]>) => h.status(...a).pipe(Effect.mapError(hermesError(HERMES_RAISES.status))),
  events: (...a: Parameters<HermesClientShape["events"]>) => h.events(...a).pipe(Stream.mapError(hermesError(HERMES_RAISES.events))),
  follow: (...a: Parameters<HermesClientShape["follow"]>) => h.follow(...a).pipe(Stream.mapError(hermesError(HERMES_RAISES.generic))),
  approval: (...a: Parameters<HermesClientShape["approval"]>) => h.approval(...a).pipe(Effect.mapError(hermesError(HERMES_RAISES.approval))),
  steer: (...a: Parameters<HermesClientShape["steer"]>) => h.steer(...a).pipe(Effect.mapError(hermesError(HERMES_RAISES.steer))),
  stop: (...a: Parameters<HermesClientShape["stop"]>) => h.stop(...a).pipe(Effect.mapError(hermesError(HERMES_RAISES.stop))),
  clarify: (...a: Parameters<HermesClientShape["clarify"]>) => h.clarify(...a).pipe(Effect.mapError(hermesError(HERMES_RAISES.clarify)))
})
