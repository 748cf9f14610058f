/**
 * Every live key is on the Redactor's mask list by value: the admin key and the metrics token from
 * the start; a client key from the moment this process sees it in plain text (created or rotated
 * here, or presented by a caller it authenticated, which covers a key the CLI made in its own
 * process), with and without its `hal0bk_` prefix; and off the list once revoked or rotated, here
 * or by another process (noticed by the same watch of `PRAGMA data_version` that forgets remembered
 * keys, or when the revoked key is presented again). The store keeps only digests: a key made
 * elsewhere and never presented is masked by its prefix alone.
 */
import { it } from "@effect/vitest"
import { Context, Effect, Fiber, Layer, Option, Queue, Redacted } from "effect"
import { describe, expect } from "vitest"
import { authLayer } from "../../src/cli/runtime.ts"
import { Redactor } from "../../src/common/Redactor.ts"
import { BRIDGE_KEY_PREFIX } from "../../src/domain/bridgeKeys.ts"
import { MASK } from "../../src/domain/redact/redact.ts"
import { Auth } from "../../src/services/auth/Auth.ts"
import { testConfig } from "../support/daemon.ts"
import { watchAuth } from "./support/watchAuth.ts"
import { eventually } from "../runs/support/harness.ts"

const METRICS_TOKEN = "zz-metrics-token-0123456789"
const config = testConfig({ bridge: { metrics_token: METRICS_TOKEN } })
/** The daemon's Auth and Redactor. */
const daemon = authLayer(config) as Layer.Layer<Auth | Redactor>
/** The CLI's: its own connection to the same file, its own Redactor (open until the test's scope closes). */
const cli = Effect.map(Layer.build(authLayer(config) as Layer.Layer<Auth | Redactor>), (context) => Context.get(context, Auth))

const body = (key: string) => key.slice(BRIDGE_KEY_PREFIX.length)

/** True when the daemon's Redactor masks `value` by value alone (no prefix, no name before it). */
const masks = (value: string) => Effect.map(Redactor, (r) => r.text(`out ${value} end`) === `out ${MASK} end`)

/** Whether the key, and its body alone, are masked by value. With its prefix the known-prefix rule masks any key. */
const registered = (key: string) =>
  Effect.gen(function* () {
    const bare = yield* masks(body(key))
    const whole = yield* masks(key)
    expect(whole || !bare).toBe(true)
    return bare
  })

/** Watches `changes` as the edge does. */
const watch = watchAuth

describe("live keys are registered with the Redactor by value", () => {
  it.live("the admin key (also without its prefix) and the metrics token, from the start", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const admin = Redacted.value(auth.adminKey)
      expect(admin.startsWith(BRIDGE_KEY_PREFIX)).toBe(true)
      expect(yield* registered(admin)).toBe(true)
      expect(yield* masks(METRICS_TOKEN)).toBe(true)
    }).pipe(Effect.provide(daemon), Effect.scoped), 20_000)

  it.live("a key created or rotated here at once; the old key and a revoked one are taken off", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const { key: first } = yield* auth.addClient("made-here", ["agents"])
      expect(yield* registered(first)).toBe(true)
      const { key: second } = yield* auth.rotate("made-here")
      expect(yield* registered(second)).toBe(true)
      expect(yield* registered(first)).toBe(false)
      yield* auth.revoke("made-here")
      expect(yield* registered(second)).toBe(false)
    }).pipe(Effect.provide(daemon), Effect.scoped), 20_000)

  it.live("a key the CLI made: from its first authentication, and seen again it leaves kept views alone", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const redactor = yield* Redactor
      const { key } = yield* Effect.flatMap(cli, (other) => other.addClient("made-by-cli", ["agents"]))
      // Only its digest is stored: until it is presented, only its prefix masks it.
      expect(yield* registered(key)).toBe(false)
      expect(Option.map(yield* auth.authenticate(key), (c) => c.client)).toEqual(Option.some("made-by-cli"))
      expect(yield* registered(key)).toBe(true)
      const memo = redactor.memo<string>(2)
      const view = memo.make("v", () => redactor.text(`out ${body(key)}`))
      expect(Option.isSome(yield* auth.authenticate(key))).toBe(true)
      expect(memo.get("v")).toBe(view)
    }).pipe(Effect.provide(daemon), Effect.scoped), 20_000)

  it.live("another process's revoke and rotate: taken off once the watch notices", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const other = yield* cli
      const { key: revoked } = yield* other.addClient("revoked-by-cli", ["agents"])
      const { key: rotated } = yield* other.addClient("rotated-by-cli", ["agents"])
      const { key: kept } = yield* other.addClient("kept-by-cli", ["agents"])
      for (const k of [revoked, rotated, kept]) expect(Option.isSome(yield* auth.authenticate(k))).toBe(true)
      const { heard, fiber } = yield* watch
      // The watch hears each commit (and, on SQLite's file watch, a late echo of the adds above may
      // come first): what it heard is waited for, then the key's registration, not the first change.
      yield* other.revoke("revoked-by-cli")
      yield* Queue.take(heard)
      expect(yield* eventually(registered(revoked), (r) => !r, "the revoked key taken off")).toBe(false)
      const { key: next } = yield* other.rotate("rotated-by-cli")
      yield* Queue.take(heard)
      expect(yield* eventually(registered(rotated), (r) => !r, "the rotated key taken off")).toBe(false)
      expect(yield* registered(kept)).toBe(true)
      expect(Option.isSome(yield* auth.authenticate(next))).toBe(true)
      expect(yield* registered(next)).toBe(true)
      yield* Fiber.interrupt(fiber)
    }).pipe(Effect.provide(daemon), Effect.scoped), 20_000)

  it.live("with nobody watching, a key revoked elsewhere is taken off when it is presented again", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const other = yield* cli
      const { key } = yield* other.addClient("presented-again", ["agents"])
      expect(Option.isSome(yield* auth.authenticate(key))).toBe(true)
      yield* other.revoke("presented-again")
      expect(yield* registered(key)).toBe(true)
      expect(yield* auth.authenticate(key)).toEqual(Option.none())
      expect(yield* registered(key)).toBe(false)
    }).pipe(Effect.provide(daemon), Effect.scoped), 20_000)

  it.live("a token that does not authenticate is never registered", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const guess = BRIDGE_KEY_PREFIX + "N0tAKeyN0tAKeyN0tAKeyN0tAKeyN0tAKeyN0tAKey1"
      expect(yield* auth.authenticate(guess)).toEqual(Option.none())
      expect(yield* registered(guess)).toBe(false)
    }).pipe(Effect.provide(daemon), Effect.scoped), 20_000)
})
