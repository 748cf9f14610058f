/**
 * `agent_capabilities`: an allow-list projection of the profile's own config.yaml plus the Hermes
 * version from `/health`. The projection itself is pure (`domain/capabilities.ts`).
 */
import { FileSystem } from "@effect/platform"
import { Context, Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { AppConfig } from "../../config/AppConfig.ts"
import { projectCapabilities, validVersion } from "../../domain/capabilities.ts"
import type { UnknownAgent } from "../../domain/errors.ts"
import type { AgentCapabilities } from "../../domain/capabilities.ts"
import { HermesClient } from "../../hermes/client/HermesClient.ts"
import { Redactor } from "../../common/Redactor.ts"
import { bridgeHermes } from "../hermes-failures/bridgeHermes.ts"

export interface CapabilitiesShape {
  readonly forAgent: (agent: string) => Effect.Effect<AgentCapabilities, UnknownAgent>
}

export class Capabilities extends Context.Tag("agent-bridge/Capabilities")<Capabilities, CapabilitiesShape>() {
  static readonly forAgent = (agent: string) => Effect.flatMap(Capabilities, (c) => c.forAgent(agent))
}

/** The production capabilities: each profile's config.yaml under `hermes.home` and its API server's version. */
export const CapabilitiesLive = Layer.effect(
  Capabilities,
  Effect.gen(function* () {
    const config = yield* AppConfig
    const hermes = yield* HermesClient
    const redactor = yield* Redactor
    // Effect's FileSystem (the daemon provides Node's), so a test can hand it any config.yaml.
    const fs = yield* FileSystem.FileSystem
    const configFile = (profile: string) =>
      profile === "default"
        ? path.join(config.hermesHome, "config.yaml")
        : path.join(config.hermesHome, "profiles", profile, "config.yaml")
    return {
      forAgent: (agent) =>
        Effect.gen(function* () {
          const p = yield* bridgeHermes(hermes).profile(agent)
          // Unreadable is the same as invalid: every file field null, nothing logged (docs/REFERENCE.md).
          const text = yield* fs.readFileString(configFile(p.name), "utf8").pipe(Effect.orElseSucceed(() => null))
          // Null when Hermes does not answer, the bridge holds no key for the profile, or it is no version.
          const version = Option.isNone(p.key)
            ? null
            : yield* hermes.health(p).pipe(
                Effect.map((h) => validVersion(h.version)),
                Effect.timeoutTo({ duration: "2 seconds", onTimeout: () => null, onSuccess: (v) => v }),
                Effect.orElseSucceed(() => null)
              )
          return projectCapabilities({
            agent: p.agent,
            profile: p.name,
            apiServerVersion: version,
            configText: text,
            keep: (s) => !redactor.wouldChange(s)
          })
        })
    }
  })
)
