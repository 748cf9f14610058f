/**
 * The secrets the bridge holds by its configuration, registered with the Redactor by value in every
 * process that reads the config (the daemon, and the CLI verbs that show runs, clients or health),
 * so none of them reaches a client, a log or the console in any of the forms the Redactor derives.
 *
 * Which values: every `Redacted` the decoded configuration holds, wherever it is (`bridge.admin_key`,
 * `bridge.metrics_token`, `hermes.key`, `hermes.profiles.<p>.key`, and any secret added to the
 * schema later, since a secret decodes to `Redacted`), except that `storage.url` is registered as
 * the password it carries (the URL's user info after the colon, and its `password` or
 * `sslpassword` parameter, as written and decoded), not as the whole URL; and the admin key from
 * `<data_dir>/admin.key` when the config does not set one and the file is there (it is not made
 * here). Keys read from `key_file` or `key_env` are registered by the Hermes client as it resolves
 * them; client keys by Auth as it sees them (`services/auth/liveKeys.ts`).
 */
import { Effect, Layer, Redacted } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import type { ResolvedConfig } from "../config/load.ts"
import { ADMIN_KEY_FILE } from "../services/auth/Auth.ts"
import { Redactor, RedactorLive } from "../common/Redactor.ts"

/** The passwords a PostgreSQL URL carries, as written in it and decoded. */
export const pgUrlSecrets = (url: string): ReadonlyArray<string> => {
  const out = new Set<string>()
  const add = (raw: string) => {
    if (raw === "") return
    out.add(raw)
    try {
      out.add(decodeURIComponent(raw))
    } catch {
      // not percent-encoded after all: as written
    }
  }
  let parsed: URL | undefined
  try {
    parsed = new URL(url)
  } catch {
    parsed = undefined
  }
  if (parsed !== undefined) add(parsed.password)
  else {
    // Not a URL the parser takes: the part between the first `:` after `//` and the last `@`.
    const m = /^[a-z]+:\/\/[^:/@]*:([^@/]*)@/i.exec(url)
    if (m !== null) add(m[1]!)
  }
  for (const m of url.matchAll(/[?&](?:ssl)?password=([^&#]*)/gi)) add(m[1]!.replace(/\+/g, " "))
  return [...out]
}

/** Every `Redacted` of a decoded tree, with the dotted path it is at. */
const redactedIn = (node: unknown, at: string): ReadonlyArray<readonly [string, string]> => {
  if (Redacted.isRedacted(node)) {
    const value = Redacted.value(node)
    return typeof value === "string" ? [[at, value]] : []
  }
  if (Array.isArray(node)) return node.flatMap((n, i) => redactedIn(n, `${at}.${i}`))
  if (node !== null && typeof node === "object") return Object.entries(node).flatMap(([k, v]) => redactedIn(v, at === "" ? k : `${at}.${k}`))
  return []
}

/** The secret values `config` holds (see the module comment), without the admin key file. */
export const heldSecrets = (config: ResolvedConfig): ReadonlyArray<string> => {
  const out = new Set<string>()
  for (const [at, value] of redactedIn(config, "")) {
    if (at === "storage.url") for (const s of pgUrlSecrets(value)) out.add(s)
    else out.add(value)
  }
  return [...out]
}

/** The admin key in `<data_dir>/admin.key`, when the config sets none and the file is there. */
const adminKeyOnDisk = (config: ResolvedConfig): ReadonlyArray<string> => {
  if (config.bridge.admin_key !== undefined) return []
  try {
    const key = fs.readFileSync(path.join(config.dataDir, ADMIN_KEY_FILE), "utf8").trim()
    return key === "" ? [] : [key]
  } catch {
    return []
  }
}

/** Registers every secret `config` holds with the Redactor. */
export const HeldSecretsRegistered = (config: ResolvedConfig): Layer.Layer<never, never, Redactor> =>
  Layer.effectDiscard(
    Effect.flatMap(Redactor, (redactor) =>
      Effect.forEach([...heldSecrets(config), ...adminKeyOnDisk(config)], (s) => redactor.registerSecret(s), { discard: true })
    )
  )

/**
 * The process's Redactor (`RedactorLive`, one per layer build: the logger given the same layer
 * shares it) with every secret `config` holds registered before anything uses it.
 */
export const RedactorForConfig = (config: ResolvedConfig): Layer.Layer<Redactor> =>
  HeldSecretsRegistered(config).pipe(Layer.provideMerge(RedactorLive))
