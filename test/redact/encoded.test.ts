/**
 * A third-party credential percent-encoded or base64-encoded (`src/domain/redact/rules/encoded.ts`):
 * the encoded run is decoded and scanned again, and what the rules find is masked in the encoded
 * text; ordinary encoded text stays as written.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { chars, leakFinder, mulberry32 } from "./corpus.ts"

const r = makeRedaction([])
const rng = mulberry32(1402)
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

const ghp = `ghp_${chars(rng, ALNUM, 36)}`
const slack = `https://hooks.slack.com/services/T${chars(rng, ALNUM, 8)}/B${chars(rng, ALNUM, 10)}/${chars(rng, ALNUM, 24)}`
const password = `${chars(rng, ALNUM, 12)}!x`
const b64 = (s: string) => Buffer.from(s).toString("base64")
const b64url = (s: string) => Buffer.from(s).toString("base64url")

/** [what, text, the part that must never show]. */
const CASES: ReadonlyArray<readonly [string, string, string]> = [
  ["a token in quotes, percent-encoded", `GET /cb?state=%7B%22t%22%3A%22${ghp}%22%7D HTTP/1.1`, ghp.slice(4)],
  ["a bearer header, percent-encoded", `https://proxy.example/fwd?h=${encodeURIComponent(`Authorization: Bearer ${chars(rng, ALNUM, 40)}`)}`, ""],
  ["a password assignment, percent-encoded", `next=${encodeURIComponent(`/login?password=${password}&x=1`)}`, password],
  ["a Slack webhook, percent-encoded", `curl "https://relay.example/?target=${encodeURIComponent(slack)}&limit=10"`, slack.slice(-24)],
  ["a token, base64", `$ echo -n ${"$"}GH | base64\n${b64(ghp)}\n`, b64(ghp).slice(8, -8)],
  ["a token inside base64 at each byte offset", `data: ${b64(`x=${ghp}`)} / ${b64(`xy=${ghp}`)} / ${b64(`xyz=${ghp}`)}`, ""],
  ["a password assignment, base64url", `payload=${b64url(`{"user":"ci","password":"${password}"}`)}`, ""],
  ["a token, base64 in JSON", JSON.stringify({ config: b64(`GITHUB_TOKEN=${ghp}`) }), ""]
]

describe("encoded third-party credentials", () => {
  for (const [what, text, core] of CASES) {
    it(`masks ${what}`, () => {
      const out = r.text(text, false)
      expect(out, what).toContain(MASK)
      if (core !== "") expect(leakFinder(core)(out), `${what}: ${out}`).toBeUndefined()
    })
  }

  it("masks exactly the encoded form of what the rules find", () => {
    const encoded = b64(`token: ${ghp}`)
    const out = r.text(`before ${encoded} after`, false)
    expect(out.startsWith("before ")).toBe(true)
    expect(out.endsWith(" after")).toBe(true)
    // What is left visible of the run decodes to no part of the token.
    for (const piece of out.slice(7, -6).split(MASK)) expect(Buffer.from(piece, "base64").toString("latin1")).not.toContain(ghp.slice(4, 12))
    const pct = `q=${encodeURIComponent(`"${ghp}"`)}&page=2`
    expect(r.text(pct, false)).toBe(`q=%22${MASK}%22&page=2`)
  })

  it("leaves ordinary encoded text as written", () => {
    const png = `data:image/png;base64,${Buffer.from(Array.from({ length: 600 }, () => Math.floor(rng() * 256))).toString("base64")}`
    for (const text of [
      "https://img.shields.io/badge/build-passing%20on%20main-green",
      "https://example.com/search?q=how%20to%20rotate%20a%20token%3F&lang=en",
      `{"query": "name%3Dalice%26role%3Dadmin"}`,
      png,
      b64("just some ordinary text, nothing secret in it at all"),
      "Z2hwX2FiYw==" // base64 of a prefix too short to be a token
    ]) {
      expect(r.text(text, false), text.slice(0, 80)).toBe(text)
    }
  })
})
