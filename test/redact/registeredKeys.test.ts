/**
 * Registered keys by value: a key that starts with a known prefix (the bridge's own `hal0bk_`, or a
 * provider's) is masked without its prefix too, in every form and at the live edge; a value can
 * be taken off the mask list again (a revoked key); registering a value already on the list keeps
 * the same Redaction (so a Redactor's memo is not made stale by a key seen again). The prefix has
 * one spelling in src/.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { BRIDGE_KEY_BODY_LENGTH, BRIDGE_KEY_PREFIX } from "../../src/domain/bridgeKeys.ts"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { newKey } from "../../src/services/auth/apiKeys.ts"
import { leakedIn } from "./corpus.ts"

const key = newKey()
const body = key.slice(BRIDGE_KEY_PREFIX.length)
const other = newKey()

describe("a registered key", () => {
  it("is the bridge's prefix and a fixed-length base62 body", () => {
    expect(key.startsWith(BRIDGE_KEY_PREFIX)).toBe(true)
    expect(body).toMatch(new RegExp(`^[0-9A-Za-z]{${BRIDGE_KEY_BODY_LENGTH}}$`))
  })

  it("is masked without its prefix, in every form the redactor knows", () => {
    const r = makeRedaction([key])
    const forms = [body, encodeURIComponent(body), Buffer.from(body).toString("base64"), Buffer.from(`user:${body}`).toString("base64"), body.split("").reverse().join("")]
    for (const form of forms) {
      // No prefix, no name before it: nothing but the registered value says it is a key.
      const out = r.text(`the output was ${form} then more`, false)
      expect(out, form).toContain(MASK)
      expect(leakedIn(out, form.slice(4, -4)), out).toBeUndefined()
    }
    // Without registration, only the prefix would find it.
    expect(makeRedaction([]).text(`the output was ${body} then more`, false)).toContain(body)
  })

  it("is masked without its prefix at the live edge, from its first characters", () => {
    const r = makeRedaction([key])
    for (const n of [4, 10, BRIDGE_KEY_BODY_LENGTH - 1]) {
      const out = r.text(`streaming ${body.slice(0, n)}`, true)
      expect(out, `${n} characters`).toBe(`streaming ${MASK}`)
    }
  })

  it("of a provider with a known prefix is masked without it too", () => {
    const hermesKey = "sk-proj-" + "Zq8Xv2Lm4Np6Rs0Tu1Wy3Ab5Cd7Ef9Gh"
    const out = makeRedaction([hermesKey]).text(`key Zq8Xv2Lm4Np6Rs0Tu1Wy3Ab5Cd7Ef9Gh end`, false)
    expect(out).toBe(`key ${MASK} end`)
  })

  it("a short body after a prefix is not registered alone (it could be a word)", () => {
    const r = makeRedaction(["sk-shortword"])
    expect(r.text("sk-shortword", false)).toBe(MASK)
    expect(r.text("a shortword here", false)).toBe("a shortword here")
  })

  it("taken off the list is no longer masked by value; the others stay", () => {
    const both = makeRedaction([key]).withSecret(other)
    const one = both.withoutSecret(key)
    expect(one.text(`a ${body} b`, false)).toBe(`a ${body} b`)
    expect(one.text(`a ${other.slice(BRIDGE_KEY_PREFIX.length)} b`, false)).toBe(`a ${MASK} b`)
    // With its prefix, the known-prefix rule still masks it: revoked keys are keys.
    expect(one.text(`a ${key} b`, false)).toBe(`a ${MASK} b`)
    expect(one.withoutSecret(key)).toBe(one)
  })

  it("registered again keeps the same Redaction", () => {
    const r = makeRedaction([key])
    expect(r.withSecret(key)).toBe(r)
    expect(r.withSecret(other)).not.toBe(r)
  })
})

describe("the bridge key prefix", () => {
  it("is spelled once in src/ (domain/bridgeKeys.ts)", () => {
    const src = path.resolve(import.meta.dirname, "../../src")
    const files = (dir: string): Array<string> =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]))
    const spelled = files(src).filter((f) => fs.readFileSync(f, "utf8").includes(`"${BRIDGE_KEY_PREFIX}`)).map((f) => path.relative(src, f))
    expect(spelled).toEqual([path.join("domain", "bridgeKeys.ts")])
  })
})
