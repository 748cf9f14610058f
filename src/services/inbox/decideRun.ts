/**
 * Answering a run's approval request in Hermes. A request Hermes no longer holds (the run ended, it
 * timed out, a stop denied it) closes the row as `expired` instead of failing the operator's click.
 */
import { Effect } from "effect"
import { type ApprovalChoice, choiceOf } from "../../domain/approvals.ts"
import { type BridgeError, InvalidInput } from "../../domain/errors.ts"
import type { HermesClientShape } from "../../hermes/client/HermesClient.ts"
import { bridgeHermes } from "../hermes-failures/bridgeHermes.ts"
import type { Decision, RunApprovalRow } from "./Inbox.ts"

export type RunAnswer = { readonly outcome: "answered"; readonly choice: ApprovalChoice } | { readonly outcome: "gone" }

export const answerRunApproval = (
  hermes: HermesClientShape,
  row: RunApprovalRow,
  decision: Decision
): Effect.Effect<RunAnswer, BridgeError> =>
  Effect.gen(function* () {
    const choice = choiceOf(decision)
    if (decision.approve && row.choices.length > 0 && !row.choices.includes(choice)) {
      return yield* new InvalidInput({ message: `this request offers ${row.choices.join(", ")}; '${choice}' is not one of them` })
    }
    const bridge = bridgeHermes(hermes)
    const profile = yield* bridge.profile(row.agent)
    return yield* bridge.approval(profile, row.hermes_run_id, { choice, ...(row.request_id === null ? {} : { requestId: row.request_id }) }).pipe(
      Effect.as<RunAnswer>({ outcome: "answered", choice }),
      Effect.catchTags({
        NoPendingRequest: () => Effect.succeed<RunAnswer>({ outcome: "gone" }),
        RunNotRunning: () => Effect.succeed<RunAnswer>({ outcome: "gone" }),
        RunNotFound: () => Effect.succeed<RunAnswer>({ outcome: "gone" })
      })
    )
  })
