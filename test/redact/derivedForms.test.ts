/**
 * Forms of the bridge's own keys that common tooling derives in one step (`xxd -p`, `od`, `tr`,
 * `rev`, `base32`, CyberChef's "to hex" / "URL encode all"): each is masked in running text, in a
 * longer hex or base64 dump, and in JSON, without masking ordinary hex next to it.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { leakedIn } from "./corpus.ts"

const ADMIN = "adminK3y-0123456789abcdefXYZ"
const CLIENT = "hal0bk_Zq8Lm2Wx7Rt4Kp1Vb9Nc3Hd6Fg0Js5Ty8Ue2Oa"
const r = makeRedaction([ADMIN, CLIENT])

const hex = (s: string) => Buffer.from(s, "utf8").toString("hex")
const percentAll = (s: string) => hex(s).replace(/../g, "%$&")
const base32 = (s: string): string => {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
  let bits = ""
  for (const b of Buffer.from(s, "utf8")) bits += b.toString(2).padStart(8, "0")
  let out = ""
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, "0"), 2)]
  return out.padEnd(Math.ceil(out.length / 8) * 8, "=")
}

/** The derived forms, and what `core` of each must never show. */
const derived = (s: string): ReadonlyArray<readonly [string, string]> => [
  ["hex", hex(s)],
  ["HEX", hex(s).toUpperCase()],
  ["upper case", s.toUpperCase()],
  ["lower case", s.toLowerCase()],
  ["every byte %XX", percentAll(s).toUpperCase()],
  ["every byte %xx", percentAll(s)],
  ["\\x escapes", hex(s).replace(/../g, "\\x$&")],
  ["reversed", [...s].reverse().join("")],
  ["base32", base32(s)],
  ["base32 unpadded", base32(s).replace(/=+$/, "")]
]

describe("derived forms of the bridge's own keys", () => {
  for (const secret of [ADMIN, CLIENT]) {
    for (const [name, form] of derived(secret)) {
      it(`masks the ${name} form of ${secret.slice(0, 6)}…`, () => {
        const texts = [
          `the value (${name}) was ${form} in the log`,
          JSON.stringify({ stdout: `${form}\n` }),
          // In a longer dump: bytes before and after it in the same encoding.
          name === "hex" ? `dump: ${hex("key=")}${form}${hex("\n")}` : name === "HEX" ? `${hex("key=").toUpperCase()}${form}0A` : form
        ]
        for (const t of texts) {
          const out = r.text(t, false)
          expect(out, t).toContain(MASK)
          expect(leakedIn(out, form, 12), t).toBeUndefined()
        }
      })
    }
  }

  it("leaves ordinary hex and words alone", () => {
    const plain = `commit ${"0123456789abcdef".repeat(3)} ADMINISTRATOR reversed text 6164 6d69 6e`
    expect(r.text(plain, false)).toBe(plain)
  })
})
