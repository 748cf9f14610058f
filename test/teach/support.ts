/**
 * Layers for the teach area: the Hermes double that records approval answers
 * (`src/hermes/client/HermesClientApprovals.ts`), callers, and the memory stack's pieces.
 */
import { Effect, Layer, Ref } from "effect"
import { type ApprovalCall, HermesClientApprovals } from "../../src/hermes/client/HermesClientApprovals.ts"
import { Caller } from "../../src/request/Caller.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { TestDb } from "../support/testDb.ts"

export const simpleHermes = Layer.unwrapEffect(Effect.map(Ref.make<ReadonlyArray<ApprovalCall>>([]), (calls) => HermesClientApprovals(calls)))

export const as = (client: string, scopes: ReadonlyArray<"agents" | "memory"> = ["agents"]) =>
  Effect.provideService(Caller, Caller.client(client, scopes))
export const asAdmin = Effect.provideService(Caller, Caller.admin)

export const testRedactor = RedactorLive
export const testDb = TestDb
