/**
 * The answer to a run's approval request, as Hermes takes it and the operator gives it: one Schema.
 * `once`, `session` and `always` approve (in the order Hermes's own prompt lists them: the inbox's
 * buttons, the CLI's `--choice`); `deny` refuses. An approval that names no choice is `once`.
 */
import { Schema } from "effect"

export const ApprovalChoice = Schema.Literal("once", "session", "always", "deny")
export type ApprovalChoice = typeof ApprovalChoice.Type

/** The choices that approve. */
export type ApproveChoice = Exclude<ApprovalChoice, "deny">
export const APPROVE_CHOICES: ReadonlyArray<ApproveChoice> = ApprovalChoice.literals.filter((c): c is ApproveChoice => c !== "deny")

export const isApproveChoice = (u: unknown): u is ApproveChoice => (APPROVE_CHOICES as ReadonlyArray<unknown>).includes(u)

/** The choice sent to Hermes for an operator's decision: theirs when they approve (default `once`), else `deny`. */
export const choiceOf = (decision: { readonly approve: boolean; readonly choice?: ApproveChoice | undefined }): ApprovalChoice =>
  decision.approve ? (decision.choice ?? "once") : "deny"
