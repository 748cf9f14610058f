/**
 * Test doubles and layers for the teach area: a `HermesClient` with fixed profiles that records
 * approval answers, and the memory stack over an in-memory database.
 */
import { Effect, Layer, Option, Redacted, Ref, Stream } from "effect"
import type { BridgeError } from "../../src/domain/errors.ts"
import { UnknownAgent } from "../../src/domain/errors.ts"
import { HermesClient, type HermesClientShape, type HermesProfile } from "../../src/hermes/client/HermesClient.ts"
import { Caller } from "../../src/request/Caller.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { DbMemory } from "../../src/storage/Db.ts"

export interface ApprovalCall {
  readonly profile: string
  readonly hermesRunId: string
  readonly choice: string
  readonly requestId: string | undefined
}

export const makeProfile = (name: string): HermesProfile => ({
  name,
  agent: name === "default" ? "hermes" : `hermes/${name}`,
  agentId: name === "default" ? "hermes" : `hermes__${name}`,
  baseUrl: `http://127.0.0.1:9/${name}`,
  key: Option.some(Redacted.make(`double-key-${name}`))
})

/**
 * Profiles `default` and `coder`. `approval` answers with `approvalAnswer` (success by default) and
 * records every call in `calls`.
 */
export const hermesDouble = (
  calls: Ref.Ref<ReadonlyArray<ApprovalCall>>,
  approvalAnswer: () => Effect.Effect<void, BridgeError> = () => Effect.void
): Layer.Layer<HermesClient> => {
  const profiles = [makeProfile("default"), makeProfile("coder")]
  const unused = () => Effect.die("not scripted in the teach double")
  const shape: HermesClientShape = {
    profiles,
    profile: (agent) => {
      const p = profiles.find((x) => x.agent === agent)
      return p === undefined ? Effect.fail(new UnknownAgent({ message: `no agent '${agent}'` })) : Effect.succeed(p)
    },
    health: unused,
    models: unused,
    features: unused,
    start: unused,
    status: unused,
    events: () => Stream.die("not scripted"),
    follow: () => Stream.die("not scripted"),
    approval: (p, hermesRunId, body) =>
      Ref.update(calls, (xs) => [...xs, { profile: p.name, hermesRunId, choice: body.choice, requestId: body.requestId }]).pipe(
        Effect.zipRight(approvalAnswer() as Effect.Effect<void, never>)
      ),
    steer: unused,
    stop: unused,
    clarify: unused
  }
  return Layer.succeed(HermesClient, shape)
}

export const simpleHermes = Layer.unwrapEffect(Effect.map(Ref.make<ReadonlyArray<ApprovalCall>>([]), (calls) => hermesDouble(calls)))

export const as = (client: string, scopes: ReadonlyArray<"agents" | "memory"> = ["agents"]) =>
  Effect.provideService(Caller, Caller.client(client, scopes))
export const asAdmin = Effect.provideService(Caller, Caller.admin)

export const testRedactor = RedactorLive
export const testDb = DbMemory
