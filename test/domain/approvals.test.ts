/** The approval choice (`src/domain/approvals.ts`): one Schema, the approving choices, the default. */
import { Either, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { APPROVE_CHOICES, ApprovalChoice, choiceOf, isApproveChoice } from "../../src/domain/approvals.ts"

describe("the approval choice", () => {
  it("is Hermes's four choices, and nothing else decodes", () => {
    expect(ApprovalChoice.literals).toEqual(["once", "session", "always", "deny"])
    for (const bad of ["approve", "ONCE", "", 1, null]) expect(Either.isLeft(Schema.decodeUnknownEither(ApprovalChoice)(bad)), String(bad)).toBe(true)
  })

  it("approves with once, session or always (in Hermes's prompt order); deny is no approving choice", () => {
    expect(APPROVE_CHOICES).toEqual(["once", "session", "always"])
    expect(isApproveChoice("session")).toBe(true)
    expect(isApproveChoice("deny")).toBe(false)
    expect(isApproveChoice(undefined)).toBe(false)
  })

  it("sends the operator's choice when they approve (once when they named none), deny when they deny", () => {
    expect(choiceOf({ approve: true })).toBe("once")
    expect(choiceOf({ approve: true, choice: "always" })).toBe("always")
    expect(choiceOf({ approve: false, choice: "always" })).toBe("deny")
  })
})
