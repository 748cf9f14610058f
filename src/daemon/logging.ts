/**
 * Logs go to stderr, one line per entry, as logfmt (`bridge.log_format: text`) or JSON (`json`),
 * from `bridge.log_level` up, and pass through the Redactor like every other text that leaves the
 * bridge (a log may be shipped off the box).
 */
import { Effect, Layer, Logger, LogLevel } from "effect"
import { Redactor } from "../common/Redactor.ts"

export type LogLevelName = "debug" | "info" | "warn" | "error"
export type LogFormat = "text" | "json"

const LEVELS: { readonly [K in LogLevelName]: LogLevel.LogLevel } = {
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error
}

export const logLevelOf = (name: LogLevelName): LogLevel.LogLevel => LEVELS[name]

/** The line formatter, its output through the redactor (no secret can reach the log). */
export const redactedLogger = (format: LogFormat, redact: (line: string) => string) =>
  Logger.map(format === "json" ? Logger.jsonLogger : Logger.logfmtLogger, redact)

export const loggingLayer = (level: LogLevel.LogLevel = LogLevel.Info, format: LogFormat = "text") =>
  Layer.unwrapEffect(
    Effect.map(Redactor, (redactor) =>
      Layer.merge(
        Logger.replace(Logger.defaultLogger, Logger.withConsoleError(redactedLogger(format, (line) => redactor.text(line)))),
        Logger.minimumLogLevel(level)
      )
    )
  )
