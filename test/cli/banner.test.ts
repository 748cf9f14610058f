/**
 * The start banner under `log_format: json` is one log entry through the daemon's redacting JSON
 * logger, shown at any `log_level` (it says where the admin key is), as the text block is.
 * (`test/daemon/jsonLogFormat.e2e.test.ts` reads the real process's output.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Console, Effect, Layer, LogLevel } from "effect"
import { bannerFields, printBanner } from "../../src/cli/banner.ts"
import { RedactorLive } from "../../src/common/Redactor.ts"
import { loggingLayer } from "../../src/daemon/logging.ts"
import { testConfig } from "../support/daemon.ts"

/** A Console whose error lines are kept (the logger and the text banner both write there). */
const keptConsole = (lines: Array<string>): Console.Console => {
  const base = Effect.runSync(Console.consoleWith(Effect.succeed))
  const push = (...args: ReadonlyArray<unknown>) => void lines.push(args.map(String).join(" "))
  return { ...base, error: (...args) => Effect.sync(() => push(...args)), unsafe: { ...base.unsafe, error: push } }
}

describe("the start banner", () => {
  const fields = bannerFields(testConfig(), "http://127.0.0.1:7777", null)

  it.effect("json at log_level error: still one INFO entry, its facts as fields", () => {
    const lines: Array<string> = []
    return printBanner("json", fields).pipe(
      Effect.provide(loggingLayer(LogLevel.Error, "json").pipe(Layer.provide(RedactorLive))),
      Effect.withConsole(keptConsole(lines)),
      Effect.map(() => {
        expect(lines).toHaveLength(1)
        expect(JSON.parse(lines[0]!)).toMatchObject({
          message: "agent-bridge listening", logLevel: "INFO",
          annotations: { address: "http://127.0.0.1:7777", inbox: "http://127.0.0.1:7777/inbox", add_client: expect.stringContaining("client add NAME") }
        })
      })
    )
  })

  it.effect("text: the block, whatever the log level", () => {
    const lines: Array<string> = []
    return printBanner("text", fields).pipe(
      Effect.provide(loggingLayer(LogLevel.Error, "text").pipe(Layer.provide(RedactorLive))),
      Effect.withConsole(keptConsole(lines)),
      Effect.map(() => {
        expect(lines.join("\n").split("\n")[0]).toBe("agent-bridge listening on http://127.0.0.1:7777")
        expect(lines.join("\n")).toContain("  inbox:        http://127.0.0.1:7777/inbox")
      })
    )
  })
})
