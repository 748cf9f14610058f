/**
 * Logs go to stderr as logfmt lines, and pass through the Redactor like every other text that leaves
 * the bridge (a log may be shipped off the box).
 */
import { Effect, Layer, Logger, LogLevel } from "effect"
import { Redactor } from "../services/Redactor.ts"

export const loggingLayer = (level: LogLevel.LogLevel = LogLevel.Info) =>
  Layer.unwrapEffect(
    Effect.map(Redactor, (redactor) =>
      Layer.merge(
        Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.map(Logger.logfmtLogger, (line) => redactor.text(line)))),
        Logger.minimumLogLevel(level)
      )
    )
  )
