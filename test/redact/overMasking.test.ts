/**
 * What was masked against the real Hermes though it is no secret (issue 37 item 7), and the secrets
 * next to each that must stay masked: the word after `secret:` in prose, a file path under a key's
 * name (the admin key's place in the JSON start banner), and `pattern_key` (the name of the rule
 * an approval matched) in the daemon's logfmt and JSON log lines.
 */
import { describe, expect, it } from "vitest"
import { Effect, Layer, Logger, LogLevel } from "effect"
import { bannerFields } from "../../src/cli/banner.ts"
import { RedactorWith, Redactor } from "../../src/common/Redactor.ts"
import { logApprovalRequested } from "../../src/services/inbox/approvalLog.ts"
import { redactedLogger } from "../../src/daemon/logging.ts"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { testConfig } from "../support/daemon.ts"

const r = makeRedaction([])
const same = (s: string) => expect(r.text(s, false)).toBe(s)

describe("prose after a secret word", () => {
  it("keeps the words after `secret:` in a sentence", () => {
    same("the secret: keep tests small")
    same("Here is the secret: keep tests small and fast.")
    same("My one password: never reuse it anywhere.")
    same("- the token: see the section below")
  })

  it("still masks a value after `secret:`", () => {
    expect(r.text('secret: "AbC9xQ2mZ7pL4vR8tY1wK6nB3hJ5"', false)).toBe(`secret: "${MASK}"`)
    expect(r.text("secret: AbC9xQ2mZ7pL4vR8tY1wK6nB3hJ5", false)).toBe(`secret: ${MASK}`)
    expect(r.text("the secret: hunter22 is what I used", false)).toBe(`the secret: ${MASK} is what I used`)
    expect(r.text("the password: swordfish", false)).toBe(`the password: ${MASK}`)
    expect(r.text("password: correct horse battery staple", false)).toContain(MASK)
    expect(r.text("  db_password: correct horse battery", false)).toContain(MASK)
    expect(r.text("SECRET=keep tests small", false)).toBe(`SECRET=${MASK} tests small`)
    expect(r.text('the secret: "keep tests small"', false)).toBe(`the secret: "${MASK}"`)
  })
})

describe("file paths", () => {
  it("leaves a path under a key's name as written", () => {
    same('{"admin_key":"/var/lib/agent-bridge/admin.key (signs in to /inbox)"}')
    same('{"admin_key":"/tmp/agent-bridge-Xk3Jq9/admin.key (signs in to /inbox)"}')
    same("signing_key: ~/.config/agent-bridge/signing.key")
    same("SSH_KEY=./deploy/keys/id_ed25519")
    expect(r.json({ admin_key: "/var/lib/agent-bridge/admin.key" })).toEqual({ admin_key: "/var/lib/agent-bridge/admin.key" })
  })

  it("still masks a base64 value that starts with a slash, and a value that only holds a path", () => {
    expect(r.text('{"signing_key":"/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAAMCAgICAgMC"}', false)).toContain(MASK)
    expect(r.text('{"signing_key":"/Xk3Jq9/Ab7Zp2Lm/Qr5Tw8"}', false)).toContain(MASK)
    expect(r.text("password=/hunter2", false)).toBe(`password=${MASK}`)
  })

  it("shows the JSON start banner's admin key place", async () => {
    const fields = bannerFields(testConfig(), "http://127.0.0.1:7777", null)
    const lines: Array<string> = []
    const logger = redactedLogger("json", (line) => r.text(line, false))
    await Effect.logInfo("agent-bridge listening").pipe(
      Effect.annotateLogs(fields),
      Effect.provide(Logger.replace(Logger.defaultLogger, Logger.map(logger, (line) => void lines.push(line)))),
      Effect.runPromise
    )
    expect(JSON.parse(lines[0]!).annotations.admin_key).toBe(fields.admin_key)
  })
})

describe("pattern_key", () => {
  const row = {
    kind: "run_approval" as const, id: "apr_1", run_id: "run_1", hermes_run_id: "h_1", client: "ci", agent: "hermes", request_id: "req_1",
    command: "rm -rf /", description: "delete in root path"
  }
  it.each(["text", "json"] as const)("is shown in the daemon's %s log line", async (format) => {
    const lines: Array<string> = []
    const logging = Layer.unwrapEffect(
      Effect.map(Redactor, (redactor) =>
        Logger.replace(Logger.defaultLogger, Logger.map(redactedLogger(format, (line) => redactor.text(line)), (line) => void lines.push(line)))
      )
    ).pipe(Layer.provide(RedactorWith([])))
    await logApprovalRequested(row as never, "delete in root path").pipe(Logger.withMinimumLogLevel(LogLevel.Info), Effect.provide(logging), Effect.runPromise)
    expect(lines[0]).toContain("delete in root path")
    expect(lines[0]).not.toContain(MASK)
    for (const value of ["recursive_delete", "rm_rf_root"]) same(`level=INFO pattern_key=${value}`)
  })

  it("a key of a pattern is no secret, a key of other words still is", () => {
    same('level=INFO message="run approval requested" pattern_key="delete in root path"')
    same("rule_key: recursive_delete")
    expect(r.text("STRIPE_KEY=sk9Fq2LmZx7Rt4Wp1aa", false)).toContain(MASK)
    expect(r.text('signing_key="k9Fq2LmZx7Rt4Wp1"', false)).toContain(MASK)
  })
})
