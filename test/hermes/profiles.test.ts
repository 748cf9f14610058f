/**
 * Profiles from the configuration, and the daemon's layers: `HermesClientLive` over a configured
 * Hermes, and over the embedded simulator when none is configured (keys registered with the
 * Redactor either way).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted, Stream } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { AppConfigLive } from "../../src/config/AppConfig.ts"
import { HermesClient } from "../../src/hermes/client/HermesClient.ts"
import { HermesClientLive } from "../../src/hermes/client/HermesClientLive.ts"
import { SimulatorInfo } from "../../src/hermes/embedded.ts"
import { HermesProfiles, profilesFromConfig, type ProfileEnv } from "../../src/hermes/profiles.ts"
import { startSimulator } from "../../src/hermes/sim/server.ts"
import { Redactor, RedactorLive } from "../../src/common/Redactor.ts"
import { tempDir, testConfig } from "../support/daemon.ts"

const penv = (env: Record<string, string>, files: Record<string, string> = {}): ProfileEnv => ({
  env,
  readFile: (p) => {
    const text = files[p]
    if (text === undefined) throw new Error(`ENOENT ${p}`)
    return text
  }
})
const keyOf = (o: Option.Option<Redacted.Redacted<string>>) => Option.map(o, Redacted.value)

describe("profilesFromConfig", () => {
  it.effect("always has the default profile, keyed from API_SERVER_KEY by default", () =>
    Effect.gen(function* () {
      const cfg = testConfig({ hermes: { url: "http://127.0.0.1:8642/" } })
      const [p, ...rest] = yield* profilesFromConfig(cfg, penv({ API_SERVER_KEY: " k-env \n" }))
      expect(rest).toEqual([])
      expect(p).toMatchObject({ name: "default", agent: "hermes", agentId: "hermes", baseUrl: "http://127.0.0.1:8642" })
      expect(keyOf(p!.key)).toEqual(Option.some("k-env"))
      const none = yield* profilesFromConfig(cfg, penv({}))
      expect(none[0]?.key).toEqual(Option.none())
    }))

  it.effect("takes key, else key_file (trimmed), else key_env, for each profile", () =>
    Effect.gen(function* () {
      const cfg = testConfig({
        hermes: {
          url: "http://h:8642", key: "inline", key_file: "/k/default",
          profiles: {
            coder: { url: "http://h:8643/", key_file: "/k/coder" },
            writer: { url: "http://h:8644", key_env: "WRITER_KEY" },
            broken: { url: "http://h:8645", key_file: "/k/missing" },
            bare: { url: "http://h:8646" }
          }
        }
      })
      const ps = yield* profilesFromConfig(cfg, penv({ WRITER_KEY: "w", API_SERVER_KEY: "ignored" }, { "/k/default": "file", "/k/coder": "  c-key\n" }))
      const by = Object.fromEntries(ps.map((p) => [p.name, p]))
      expect(keyOf(by.default!.key)).toEqual(Option.some("inline"))
      expect(by.coder).toMatchObject({ agent: "hermes/coder", agentId: "hermes__coder", baseUrl: "http://h:8643" })
      expect(keyOf(by.coder!.key)).toEqual(Option.some("c-key"))
      expect(keyOf(by.writer!.key)).toEqual(Option.some("w"))
      expect(by.broken!.key).toEqual(Option.none())
      expect(by.bare!.key).toEqual(Option.none())
    }))

  it.effect("with multiplex, a profile without its own url lives at <hermes.url>/p/<name>", () =>
    Effect.gen(function* () {
      const cfg = testConfig({ hermes: { url: "http://h:8642", multiplex: true, profiles: { coder: {} } } })
      const ps = yield* profilesFromConfig(cfg, penv({}))
      expect(ps[1]?.baseUrl).toBe("http://h:8642/p/coder")
    }))
})

const daemonHermes = (yaml: Record<string, unknown>) => {
  const cfg = testConfig(yaml)
  return HermesClientLive.pipe(Layer.provideMerge(Layer.merge(AppConfigLive(cfg), RedactorLive)))
}

describe("HermesClientLive", () => {
  it.scopedLive("with no Hermes configured, embeds a simulator serving the configured profiles", () =>
    Effect.gen(function* () {
      const hermes = yield* HermesClient
      const info = yield* SimulatorInfo
      const redactor = yield* Redactor
      const url = Option.getOrThrow(info.url)
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(hermes.profiles.map((p) => [p.agent, p.baseUrl])).toEqual([["hermes", url], ["hermes/coder", `${url}/p/coder`]])
      for (const p of hermes.profiles) {
        const key = Redacted.value(Option.getOrThrow(p.key))
        expect(redactor.text(`the key is ${key}`)).not.toContain(key)
      }
      const coder = yield* hermes.profile("hermes/coder")
      expect(yield* hermes.models(coder)).toEqual(["coder"])
      const { hermesRunId } = yield* hermes.start(coder, { input: "hello from the embedded simulator" })
      const last = yield* Stream.runLast(hermes.follow(coder, hermesRunId))
      expect(Option.getOrThrow(last).event).toBe("run.completed")
      expect((yield* HermesProfiles).length).toBe(2)
    }).pipe(Effect.provide(daemonHermes({ hermes: { url: "sim", profiles: { coder: {} } } }))))

  it.scopedLive("with a Hermes configured, starts nothing and uses its URL and key", () =>
    Effect.gen(function* () {
      const sim = yield* startSimulator({ profiles: [{ name: "default", key: "configured-key-123" }] })
      const keyFile = path.join(tempDir(), "key")
      fs.writeFileSync(keyFile, "configured-key-123\n")
      const layer = daemonHermes({ hermes: { url: sim.url, key_file: keyFile, timeout_ms: 2000 } })
      yield* Effect.gen(function* () {
        const hermes = yield* HermesClient
        expect(Option.isNone((yield* SimulatorInfo).url)).toBe(true)
        const p = yield* hermes.profile("hermes")
        expect(p.baseUrl).toBe(sim.url)
        expect(yield* hermes.models(p)).toEqual(["hermes-agent"])
        expect((yield* Redactor).text("x configured-key-123 y")).not.toContain("configured-key-123")
      }).pipe(Effect.provide(layer))
    }))
})
