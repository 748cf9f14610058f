/**
 * `client add --scope`: a new key has `a2a` unless `--scope agents` says MCP only; `memory` adds to
 * the default; anything else is a usage error that admits nobody. The scopes a key is given are
 * the scopes it authenticates with (a key made without `a2a`, as every key before the A2A face, has none).
 */
import { it } from "@effect/vitest"
import { Effect, Either, Layer, Option } from "effect"
import { describe, expect } from "vitest"
import { clientCommand } from "../../src/cli/client.ts"
import { parseArgs } from "../../src/cli/args.ts"
import { authLayer } from "../../src/cli/runtime.ts"
import { Auth } from "../../src/services/auth/Auth.ts"
import { testConfig } from "../support/daemon.ts"

const config = testConfig()
const layer = authLayer(config) as Layer.Layer<Auth>

const add = (...argv: Array<string>) =>
  Effect.map(clientCommand(config, parseArgs(["client", "add", ...argv, "--json"])), (out) => JSON.parse(out as string).scopes as Array<string>)

describe("client add --scope", () => {
  it.effect("default and --scope a2a: agents and a2a; --scope memory adds memory; --scope agents: MCP only", () =>
    Effect.gen(function* () {
      expect(yield* add("plain")).toEqual(["agents", "a2a"])
      expect(yield* add("asked", "--scope", "a2a")).toEqual(["agents", "a2a"])
      expect(yield* add("mem", "--scope", "memory")).toEqual(["agents", "a2a", "memory"])
      expect(yield* add("mcp", "--scope", "agents")).toEqual(["agents"])
      const bad = yield* Effect.either(add("nope", "--scope", "admin"))
      expect(Either.isLeft(bad) && String(bad.left)).toContain("--scope takes memory, a2a or agents")
      const auth = yield* Auth
      expect((yield* auth.listClients).map((c) => c.name)).not.toContain("nope")
    }).pipe(Effect.provide(layer)), 20_000)

  it.effect("a key authenticates with exactly the scopes it was given", () =>
    Effect.gen(function* () {
      const auth = yield* Auth
      const old = yield* auth.addClient("before-a2a", ["agents", "memory"])
      const caller = yield* auth.authenticate(old.key)
      expect(Option.map(caller, (c) => c.scopes)).toEqual(Option.some(["agents", "memory"]))
    }).pipe(Effect.provide(layer)), 20_000)
})
