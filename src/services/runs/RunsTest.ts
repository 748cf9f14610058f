/**
 * `RunsTest`: a run service whose calls are the ones the test scripts (it records what its script
 * records); any call it did not script is a defect naming it, so a test sees at once what it missed.
 */
import { Effect, Layer, Stream } from "effect"
import { Runs, type RunsShape } from "./Runs.ts"

/** Every operation of the interface (a Record, so a new one fails the typecheck until it is listed). */
const OPS: Readonly<Record<keyof RunsShape, true>> = { start: true, wait: true, status: true, watch: true, events: true, answer: true, steer: true, stop: true, list: true, page: true }

export const RunsTest = (script: Partial<RunsShape>): Layer.Layer<Runs> => {
  const unscripted = (op: string) => () => {
    const missing = Effect.die(new Error(`Runs.${op} is not scripted in this RunsTest`))
    return op === "watch" ? Stream.fromEffect(missing) : missing
  }
  const shape = Object.fromEntries(Object.keys(OPS).map((op) => [op, script[op as keyof RunsShape] ?? unscripted(op)])) as unknown as RunsShape
  return Layer.succeed(Runs, shape)
}
