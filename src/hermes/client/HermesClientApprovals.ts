/**
 * `HermesClientApprovals`: a `HermesClient` for the teach tests, with fixed profiles `default` and
 * `coder`; it fakes the answer to an approval and records every approval call, failing as the real
 * client does (with the adapter's errors). Any other call is a defect.
 */
import { Effect, Layer, Option, Redacted, Ref, Stream } from "effect"
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
  const unused = () => Effect.die("not scripted in the teach double")
  const shape: HermesClientShape = {
    profiles,
    profile: (agent) => findProfile(profiles, agent),
    health: unused,
    models: unused,
    features: unused,
    start: unused,
    status: unused,
    events: () => Stream.die("not scripted"),
    follow: () => Stream.die("not scripted"),
    approval: (p, hermesRunId, body) =>
      Ref.update(calls, (xs) => [...xs, { profile: p.name, hermesRunId, choice: body.choice, requestId: body.requestId }]).pipe(
        Effect.zipRight(approvalAnswer())
      ),
    steer: unused,
    stop: unused,
    clarify: unused
  }
  return Layer.succeed(HermesClient, shape)
}
