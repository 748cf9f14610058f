/**
 * The HermesClient as the services call it: every operation of the client, with its failures already
 * the bridge's (`toBridgeError`, `hermesErrors.ts`), each with the specific errors of its operation's
 * raise list (`OPERATION_CODES`, beside the operations in `hermes/client/operations.ts`).
 * `bridgeHermes(hermes).stop(p, id)` fails with `RunNotFound` or a generic Hermes error; `profile`
 * fails with `UnknownAgent`. A new operation of the client is here with nothing to add: its type and
 * its mapping follow from the client's interface and its raise list.
 */
import { Effect, Stream } from "effect"
import type { UnknownAgent } from "../../domain/errors.ts"
import type { HermesCode, HermesFailure, HermesNoProfile } from "../../hermes/client/failure.ts"
import type { HermesClientShape } from "../../hermes/client/HermesClient.ts"
import { OPERATION_CODES } from "../../hermes/client/operations.ts"
import { type HermesCallError, type RaisedBy, toBridgeError } from "./hermesErrors.ts"

type Codes<K> = K extends keyof typeof OPERATION_CODES ? (typeof OPERATION_CODES)[K][number] : never

/** An adapter error as the bridge's: a profile lookup's as `UnknownAgent`, any other with the operation's raise list. */
type Mapped<E, K> = E extends HermesNoProfile ? UnknownAgent : E extends HermesFailure ? HermesCallError | RaisedBy<Codes<K>> : E

export type BridgeHermes = {
  readonly [K in keyof HermesClientShape]: HermesClientShape[K] extends (...a: infer A) => Effect.Effect<infer R, infer E>
    ? (...a: A) => Effect.Effect<R, Mapped<E, K>>
    : HermesClientShape[K] extends (...a: infer A) => Stream.Stream<infer R, infer E>
    ? (...a: A) => Stream.Stream<R, Mapped<E, K>>
    : HermesClientShape[K]
}

const codesOf = (operation: string): ReadonlyArray<HermesCode> =>
  Object.hasOwn(OPERATION_CODES, operation) ? OPERATION_CODES[operation as keyof typeof OPERATION_CODES] : []

export const bridgeHermes = (hermes: HermesClientShape): BridgeHermes =>
  new Proxy(hermes, {
    get: (target, member, receiver) => {
      const value: unknown = Reflect.get(target, member, receiver)
      if (typeof value !== "function" || typeof member !== "string") return value
      const codes = codesOf(member)
      const map = (f: HermesFailure | HermesNoProfile) => toBridgeError(f, codes)
      return (...args: ReadonlyArray<unknown>) => {
        const out: unknown = value.apply(target, args)
        return Effect.isEffect(out)
          ? Effect.mapError(out as Effect.Effect<unknown, HermesFailure | HermesNoProfile>, map)
          : Stream.mapError(out as Stream.Stream<unknown, HermesFailure>, map)
      }
    }
  }) as unknown as BridgeHermes
