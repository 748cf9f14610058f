/** Argument schemas and helpers shared by several run tools. */
import { Schema } from "effect"
import { RunStatus, type RunView, type RunWaitView } from "../../../domain/runs/view.ts"
import { InvalidOffset } from "../../../domain/errors.ts"
import type { InvalidInputMapper } from "../ToolDef.ts"

export const ReasoningEffortField = Schema.Literal("none", "minimal", "low", "medium", "high", "xhigh", "max", "ultra")
  .annotations({ description: "How hard the model should think." })

export const StatusField = RunStatus.annotations({ description: "Only runs with this status." })

/** `agent_run` with `wait_s` answers the run view: the wait's extra fields are dropped. */
export const waitView = (w: RunWaitView): RunView => {
  const { events_tail: _tail, timed_out: _timedOut, ...view } = w
  return view
}

/** A negative or non-integer `offset` is `bridge.invalid_offset`, as docs/REFERENCE.md's error table says. */
export const offsetRefusal: InvalidInputMapper = (field, message) =>
  field === "offset" ? new InvalidOffset({ message: `offset must be a whole number of bytes ≥ 0 (${message})` }) : undefined
