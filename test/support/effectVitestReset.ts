/**
 * Runs before every test file (vitest setupFiles). @effect/vitest's `layer(...)` installs its
 * layer-backed `effect`/`scoped`/… on vitest's own `it` object and leaves them there. Inside one file
 * that is what the file asked for; but the forks keep their modules from one file to the next
 * (isolate: false), so the next file's `it.effect` would run on the previous file's layer, without
 * the TestClock (`testClock.adjust is not a function`). Re-installing the default methods here gives
 * every file the `it` a fresh import of @effect/vitest gives.
 */
import { makeMethods } from "@effect/vitest"
import { it } from "vitest"

// The same call @effect/vitest makes on `it` when it is first imported.
makeMethods(it as unknown as Parameters<typeof makeMethods>[0])
