/**
 * `RunsTest`: a run service whose calls are the ones the test scripts (it records what its script
 * records); any call it did not script is a defect naming it (`common/unscripted.ts`), so a test sees
 * at once what it missed, and a new operation of the interface costs this double nothing.
 */
import { Layer } from "effect"
import { unscripted } from "../../common/unscripted.ts"
import { Runs, type RunsShape } from "./Runs.ts"

export const RunsTest = (script: Partial<RunsShape>): Layer.Layer<Runs> =>
  Layer.succeed(Runs, unscripted<RunsShape>("Runs", "this RunsTest")(script))
