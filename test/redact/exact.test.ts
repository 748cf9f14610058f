/** Registered secrets: masked as written, base64-encoded at any byte offset, URL-encoded, JSON-escaped. */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { secretVariants } from "../../src/domain/redact/exact.ts"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { Redactor, RedactorLive } from "../../src/common/Redactor.ts"
import { leakedIn } from "./corpus.ts"

// Fake values with characters that URL-encoding and JSON-escaping change.
const SECRETS = ["hermes key/with+odd=chars&\"quotes\"", "adminK3y-0123456789abcdefXYZ", "pässwörd mit Ümlauten 42"]
const r = makeRedaction(SECRETS)

const forms = (s: string): ReadonlyArray<[string, string]> => [
  ["raw", s],
  ["json", JSON.stringify(s).slice(1, -1)],
  ["url", encodeURIComponent(s)],
  ["form", encodeURIComponent(s).replace(/%20/g, "+")],
  ["base64", Buffer.from(s).toString("base64")],
  ["base64url", Buffer.from(s).toString("base64url")],
  ["basic", Buffer.from(`user:${s}`).toString("base64")],
  ["base64 at offset 1", Buffer.from(`x${s}y`).toString("base64")],
  ["base64 at offset 2", Buffer.from(`xy${s}z`).toString("base64")]
]

describe("exact secrets", () => {
  it("masks every form in running text", () => {
    for (const secret of SECRETS) {
      for (const [name, form] of forms(secret)) {
        const out = r.text(`the value (${name}) was ${form} in the log`, false)
        expect(out, name).toContain(MASK)
        // No 8 characters of the encoded form survive, except what depends on neighbouring bytes.
        expect(leakedIn(out, form.slice(4, -4)), `${name}: ${out}`).toBeUndefined()
      }
    }
  })

  it("ignores values too short to tell from text", () => {
    expect(secretVariants("abc")).toEqual([])
    expect(makeRedaction(["abc"]).text("abc abc", false)).toBe("abc abc")
  })

  it("registers secrets through the service", async () => {
    const out = await Effect.gen(function* () {
      const redactor = yield* Redactor
      const before = redactor.text("token is zz-registered-later-99")
      yield* redactor.registerSecret("zz-registered-later-99")
      return [before, redactor.text("token is zz-registered-later-99"), redactor.wouldChange("zz-registered-later-99")] as const
    }).pipe(Effect.provide(RedactorLive), Effect.runPromise)
    expect(out).toEqual(["token is zz-registered-later-99", `token is ${MASK}`, true])
  })
})
