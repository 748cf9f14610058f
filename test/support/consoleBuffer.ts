/**
 * The console lines of the test running now, kept in memory until the test's outcome says whether
 * anyone needs them (quietConsole.ts). Bounded: a test that logs in a loop keeps its newest lines.
 */

export type Stream = "stdout" | "stderr"

/** The console methods held back (the ones loggers use), and the stream vitest shows each on. */
export const quietMethods: ReadonlyArray<readonly [keyof Console, Stream]> = [
  ["log", "stdout"],
  ["info", "stdout"],
  ["debug", "stdout"],
  ["warn", "stderr"],
  ["error", "stderr"]
]

export interface ConsoleBuffer {
  /** True when every line goes straight through (nothing is held). */
  readonly passThrough: boolean
  readonly push: (stream: Stream, text: string) => void
  /** Drops what is held: a new test (or file) starts. */
  readonly begin: () => void
  /** Sends what is held to the sink under a heading, then drops it. */
  readonly flush: (heading: string) => void
  /** Where flushed lines go (the console's own methods). */
  readonly setSink: (sink: (stream: Stream, text: string) => void) => void
  /** Characters held now (for tests of the bound). */
  readonly heldChars: () => number
}

export const makeConsoleBuffer = (maxChars = 1024 * 1024): ConsoleBuffer => {
  let lines: Array<readonly [Stream, string]> = []
  let chars = 0
  let dropped = 0
  let sink: ((stream: Stream, text: string) => void) | undefined
  let flushing = false
  const buffer: ConsoleBuffer = {
    get passThrough() {
      return sink === undefined || flushing
    },
    push: (stream, text) => {
      lines.push([stream, text])
      chars += text.length
      while (chars > maxChars && lines.length > 1) {
        chars -= lines.shift()![1].length
        dropped++
      }
    },
    begin: () => {
      lines = []
      chars = 0
      dropped = 0
    },
    flush: (heading) => {
      const held = lines
      const lost = dropped
      buffer.begin()
      if (held.length === 0 || sink === undefined) return
      // While flushing, the wrapped methods pass through (the sink may be one of them).
      flushing = true
      try {
        sink("stdout", `── ${heading} (${held.length} line${held.length === 1 ? "" : "s"}${lost > 0 ? `, ${lost} earlier dropped` : ""}) ──`)
        for (const [stream, text] of held) sink(stream, text)
      } finally {
        flushing = false
      }
    },
    setSink: (next) => {
      sink = next
    },
    heldChars: () => chars
  }
  return buffer
}
