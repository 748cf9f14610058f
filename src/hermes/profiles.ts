/**
 * The Hermes profiles the bridge serves, from the configuration: the default profile (agent
 * `hermes`) always, plus one per `hermes.profiles` entry (agent `hermes/<name>`). Each gets its
 * URL (its own `url`, else `<hermes.url>/p/<name>` on a multiplexed Hermes) and its key (`key`,
 * else `key_file` read and trimmed, else the environment variable named by `key_env`; the default
 * profile's `key_env` defaults to API_SERVER_KEY). No key means `keyed: false`.
 */
import { Context, Effect, Layer, Option, Redacted } from "effect"
import * as fs from "node:fs"
import type { ResolvedConfig } from "../config/load.ts"
import { type HermesProfile, namedProfile } from "./client/HermesClient.ts"

/** The profiles the daemon talks to; provided by `HermesEmbedded` (config or simulator). */
export class HermesProfiles extends Context.Tag("agent-bridge/HermesProfiles")<HermesProfiles, ReadonlyArray<HermesProfile>>() {}

/** These profiles, as they are. */
export const HermesProfilesWith = (profiles: ReadonlyArray<HermesProfile>) => Layer.succeed(HermesProfiles, profiles)

/** Hermes's default listen address, used when no URL is configured for a profile. */
export const HERMES_DEFAULT_URL = "http://127.0.0.1:8642"

export interface KeySource {
  readonly key?: Redacted.Redacted<string> | undefined
  readonly key_file?: string | undefined
  readonly key_env?: string | undefined
}

export interface ProfileEnv {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly readFile: (path: string) => string
}

const nodeEnv: ProfileEnv = { env: process.env, readFile: (p) => fs.readFileSync(p, "utf8") }

/** The key a profile presents, or none; a key file that cannot be read is logged and counts as none. */
export const resolveKey = (profile: string, source: KeySource, penv: ProfileEnv): Effect.Effect<Option.Option<Redacted.Redacted<string>>> =>
  Effect.gen(function* () {
    if (source.key !== undefined) return Option.some(source.key)
    if (source.key_file !== undefined) {
      const file = source.key_file
      const read = yield* Effect.try(() => penv.readFile(file).trim()).pipe(Effect.either)
      if (read._tag === "Left") {
        yield* Effect.logWarning(`Hermes profile ${profile}: cannot read key_file ${file}; the profile is unkeyed`)
        return Option.none()
      }
      return read.right === "" ? Option.none() : Option.some(Redacted.make(read.right))
    }
    const value = source.key_env === undefined ? undefined : penv.env[source.key_env]?.trim()
    return value === undefined || value === "" ? Option.none() : Option.some(Redacted.make(value))
  })

const configuredUrl = (config: ResolvedConfig): string =>
  config.useSimulator || config.hermes.url === undefined ? HERMES_DEFAULT_URL : config.hermes.url.replace(/\/+$/, "")

export const profilesFromConfig = (config: ResolvedConfig, penv: ProfileEnv = nodeEnv): Effect.Effect<ReadonlyArray<HermesProfile>> =>
  Effect.gen(function* () {
    const h = config.hermes
    const base = configuredUrl(config)
    const profiles: Array<HermesProfile> = [
      namedProfile("default", base, yield* resolveKey("default", { key: h.key, key_file: h.key_file, key_env: h.key_env }, penv))
    ]
    for (const [name, endpoint] of Object.entries(h.profiles)) {
      if (endpoint.url === undefined && !h.multiplex) {
        yield* Effect.logWarning(`Hermes profile ${name} has no url and hermes.multiplex is off; assuming ${base}/p/${name}`)
      }
      const url = endpoint.url === undefined ? `${base}/p/${name}` : endpoint.url.replace(/\/+$/, "")
      profiles.push(namedProfile(name, url, yield* resolveKey(name, endpoint, penv)))
    }
    return profiles
  })
