/**
 * A tool is a thin Effect program at the edge: decode input with Schema, call services, encode the
 * output. Each tool module exports one `ToolDef`; `tools/list` and `tools/call` read the registry.
 */
import type { Effect } from "effect"
import { Schema } from "effect"
import type { BridgeError } from "../../domain/errors.ts"

export interface ToolAnnotations {
  readonly readOnlyHint: boolean
  readonly destructiveHint: boolean
  readonly idempotentHint: boolean
  readonly openWorldHint?: boolean
}

/** Maps an argument decoding failure (field path and message) to the most specific bridge error. */
export type InvalidInputMapper = (field: string | undefined, message: string) => BridgeError | undefined

export interface ToolDef<I = any, O = any, R = any> {
  readonly name: string
  /** The human title (`tools/list` `title`): what a client shows in its tool list and approval prompts. */
  readonly title: string
  /** One or two sentences an LLM can act on: when to use it, what it returns, how to follow up. */
  readonly description: string
  readonly input: Schema.Schema<I, any, never>
  readonly output: Schema.Schema<O, any, never>
  readonly annotations: ToolAnnotations
  /** Field-specific refusals for undecodable input; the default is `bridge.invalid_input`. */
  readonly invalidInput?: InvalidInputMapper
  /** Whether the call may send `notifications/progress` (long waits). */
  readonly progress?: boolean
  readonly handler: (input: I) => Effect.Effect<O, BridgeError, R>
}

export const defineTool = <I, O, R>(def: ToolDef<I, O, R>): ToolDef<I, O, R> => def

/** Common argument fields, described once so every tool documents them the same way. */
export const Fields = {
  agent: Schema.String.annotations({
    description: 'The Hermes agent: "hermes" (the default profile) or "hermes/<profile>".'
  }),
  runId: Schema.String.annotations({ description: "The run id returned by agent_run (run_ + 32 hex)." }),
  seconds: (max: number, description: string) =>
    Schema.Number.pipe(Schema.finite(), Schema.between(0, max)).annotations({ description })
}
