/**
 * `HermesClientApprovals`: a `HermesClient` for the teach tests, with fixed profiles `default` and
 * `coder`; it fakes the answer to an approval and records every approval call, failing as the real
 * client does (with the adapter's errors). Any other call is a defect naming it (`common/unscripted.ts`).
 */
import { Effect, Layer, Option, Redacted, Ref } from "effect"
import { unscripted } from "../../common/unscripted.ts"
import type { HermesFailure } from "./failure.ts"
import { findProfile, HermesClient, type HermesClientShape, type HermesProfile, namedProfile } from "./HermesClient.ts"

export interface ApprovalCall {
  readonly profile: string
  readonly hermesRunId: string
  readonly choice: string
  readonly requestId: string | undefined
}

export const makeProfile = (name: string): HermesProfile =>
  namedProfile(name, `http://127.0.0.1:9/${name}`, Option.some(Redacted.make(`double-key-${name}`)))

/**
 * Profiles `default` and `coder`. `approval` answers with `approvalAnswer` (success by default) and
 * records every call in `calls`.
 */
export const HermesClientApprovals = (
  calls: Ref.Ref<ReadonlyArray<ApprovalCall>>,
  approvalAnswer: () => Effect.Effect<void, HermesFailure> = () => Effect.void
): Layer.Layer<HermesClient> => {
  const profiles = [makeProfile("default"), makeProfile("coder")]
  const shape = unscripted<HermesClientShape>("HermesClient", "the teach double (HermesClientApprovals)")({
    profiles,
    profile: (agent) => findProfile(profiles, agent),
    approval: (p, hermesRunId, body) =>
      Ref.update(calls, (xs) => [...xs, { profile: p.name, hermesRunId, choice: body.choice, requestId: body.requestId }]).pipe(
        Effect.zipRight(approvalAnswer())
      )
  })
  return Layer.succeed(HermesClient, shape)
}
