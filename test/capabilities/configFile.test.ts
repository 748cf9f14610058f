/**
 * `agent_capabilities` reads the profile's config.yaml through Effect's FileSystem: a test hands it
 * any file (or none) without touching the disk, and an unreadable file is the same as none (every
 * file field null), as for a real missing file.
 */
import { FileSystem } from "@effect/platform"
import { SystemError } from "@effect/platform/Error"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { HermesNoProfile } from "../../src/hermes/client/failure.ts"
import { HermesClient, type HermesClientShape, type HermesProfile } from "../../src/hermes/client/HermesClient.ts"
import { Capabilities, CapabilitiesLive } from "../../src/services/capabilities/Capabilities.ts"
import { testConfig } from "../support/daemon.ts"
import { unscripted } from "../../src/common/unscripted.ts"

const profile: HermesProfile = { name: "default", agent: "hermes", agentId: "hermes", baseUrl: "http://127.0.0.1:9", key: Option.none() }

/** Only what capabilities asks of Hermes: the profile (unkeyed, so no health call). */
const hermes = Layer.succeed(HermesClient, unscripted<HermesClientShape>("HermesClient")({
  profiles: [profile],
  profile: (agent: string) => (agent === "hermes" ? Effect.succeed(profile) : Effect.fail(new HermesNoProfile({ agent })))
}))

const config = testConfig()
const read: Array<string> = []

const withFiles = (files: Record<string, string>) =>
  CapabilitiesLive.pipe(
    Layer.provide(FileSystem.layerNoop({
      readFileString: (p) => {
        read.push(p)
        return p in files
          ? Effect.succeed(files[p]!)
          : Effect.fail(new SystemError({ module: "FileSystem", method: "readFileString", reason: "NotFound", pathOrDescriptor: p }))
      }
    })),
    Layer.provide(hermes),
    Layer.provide(RedactorLive),
    Layer.provide(AppConfigLive(config))
  )

describe("capabilities read config.yaml through FileSystem", () => {
  it.effect("the profile's file as the FileSystem gives it", () =>
    Effect.gen(function* () {
      const file = `${config.hermesHome}/config.yaml`
      const caps = yield* Capabilities.forAgent("hermes").pipe(
        Effect.provide(withFiles({ [file]: "model_aliases:\n  fast:\n    model: m-small\n    provider: p1\n" }))
      )
      expect(read).toContain(file)
      expect(caps.model_aliases).toEqual({ fast: { model: "m-small", provider: "p1" } })
    }))

  it.effect("a file the FileSystem cannot read is no file: every file field null", () =>
    Effect.gen(function* () {
      const caps = yield* Capabilities.forAgent("hermes").pipe(Effect.provide(withFiles({})))
      expect(caps.model_aliases).toBeNull()
      expect(caps.mcp_servers).toBeNull()
    }))
})
