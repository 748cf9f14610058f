/**
 * Progress reporting for long tool calls. The edge provides a live one when the MCP request carried a
 * `progressToken`; otherwise reports go nowhere.
 */
import { Context, Effect, Layer } from "effect"

export interface ProgressShape {
  readonly enabled: boolean
  readonly report: (progress: number, message?: string) => Effect.Effect<void>
}

export class Progress extends Context.Tag("agent-bridge/Progress")<Progress, ProgressShape>() {}

/** A request without a `progressToken`: one shared value (the MCP edge reuses a call's runtime for it). */
export const NO_PROGRESS: ProgressShape = { enabled: false, report: () => Effect.void }

/** No `progressToken` on the request: reports go nowhere. */
export const ProgressNone = Layer.succeed(Progress, NO_PROGRESS)

/**
 * `ProgressTest`: a request that carried a `progressToken`; it records each report in `reports`,
 * in order, for the test to read.
 */
export const ProgressTest = (reports: Array<{ readonly progress: number; readonly message: string | undefined }>) =>
  Layer.succeed(Progress, { enabled: true, report: (progress, message) => Effect.sync(() => { reports.push({ progress, message }) }) })
