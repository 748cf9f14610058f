/**
 * The bodies the bridge reads from Hermes (docs/SIMULATOR.md). Lenient where Hermes is: unknown keys
 * are ignored, optional fields may be absent or null; strict where the bridge depends on a value.
 */
import { Schema } from "effect"
import { ApprovalChoice } from "../../domain/approvals.ts"
import { RunStatus } from "../../domain/runs/view.ts"

const OptionalNullable = <S extends Schema.Schema.Any>(s: S) => Schema.optional(Schema.NullOr(s))

export const HealthBody = Schema.Struct({
  status: Schema.String,
  version: Schema.optional(Schema.Unknown)
})

export const ModelsBody = Schema.Struct({
  data: Schema.Array(Schema.Struct({ id: Schema.String }))
})

export const CapabilitiesBody = Schema.Struct({
  features: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  endpoints: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
})

/** `{run_id, status: "started", replayed?}`, or (some variants) the whole status object. */
export const StartBody = Schema.Struct({
  run_id: Schema.String,
  replayed: Schema.optional(Schema.Boolean)
})


export const UsageBody = Schema.Struct({
  input_tokens: Schema.optional(Schema.Number),
  output_tokens: Schema.optional(Schema.Number),
  total_tokens: Schema.optional(Schema.Number)
})

export const ApprovalBody = Schema.Struct({
  request_id: Schema.String,
  command: Schema.optionalWith(Schema.String, { default: () => "" }),
  description: Schema.optionalWith(Schema.String, { default: () => "" }),
  choices: Schema.optionalWith(Schema.Array(Schema.String), { default: () => [...ApprovalChoice.literals] })
})

export const ClarificationBody = Schema.Struct({
  clarify_id: Schema.String,
  question: Schema.optionalWith(Schema.String, { default: () => "" }),
  choices: OptionalNullable(Schema.Array(Schema.String)),
  multi_select: Schema.optionalWith(Schema.Boolean, { default: () => false })
})

export const RunStatusBody = Schema.Struct({
  run_id: Schema.String,
  status: RunStatus,
  output: OptionalNullable(Schema.String),
  usage: OptionalNullable(UsageBody),
  error: OptionalNullable(Schema.String),
  pending_steer: OptionalNullable(Schema.String),
  approval: OptionalNullable(ApprovalBody),
  clarification: OptionalNullable(ClarificationBody)
})
export type RunStatusBody = typeof RunStatusBody.Type

/** `{"error":{"message","type","param","code"}}`; anything else reads as no envelope. */
export const ErrorEnvelope = Schema.Struct({
  error: Schema.Struct({
    message: OptionalNullable(Schema.String),
    code: OptionalNullable(Schema.String)
  })
})
