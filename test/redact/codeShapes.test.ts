/**
 * Code that only looks like a credential (the repository's own new sources tripped the false
 * positive budget): a template literal built at run time, a `bearer = …` assignment, a challenge's
 * `Bearer name="…"` auth-param, an ellipsis standing for a credential. Next to each, the credential
 * of the same shape that must stay masked.
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"

const r = makeRedaction([])
const same = (s: string) => expect(r.text(s, false)).toBe(s)
const SECRET = "AbC9xQ2mZ7pL4vR8tY1wK6nB3hJ5"

describe("code shaped like a credential", () => {
  it("keeps a template literal whose value the code builds", () => {
    same("const token = `slot_${randomBytes(12).toString(\"hex\")}`")
    same("  token: `${OAUTH_PREFIX}/token`,")
    same("  admin_key: `${adminKeyPlace(config)} (signs in to /inbox)`,")
  })

  it("masks a literal secret in a template, interpolation or not", () => {
    expect(r.text(`const token = \`${SECRET}\``, false)).toBe(`const token = \`${MASK}\``)
    expect(r.text(`const token = \`${SECRET}\${suffix}\``, false)).not.toContain(SECRET)
  })

  it("keeps `bearer = …` code and a challenge's auth-params; masks a Bearer credential", () => {
    same("    const bearer = Option.getOrUndefined(yield* Effect.serviceOption(BearerTokens))")
    same('WWW-Authenticate: Bearer resource_metadata="https://bridge.example/.well-known/oauth-protected-resource"')
    same('WWW-Authenticate: Bearer realm="bridge", error="invalid_token"')
    expect(r.text(`curl -H "x: y" Bearer ${SECRET}`, false)).toBe(`curl -H "x: y" Bearer ${MASK}`)
    expect(r.text(`Bearer ${SECRET}=`, false)).not.toContain(SECRET)
  })

  it("keeps an ellipsis standing for the credential; masks the credential itself", () => {
    same("<code>Authorization: Bearer …</code>")
    expect(r.text(`Authorization: Bearer ${SECRET}`, false)).toBe(`Authorization: Bearer ${MASK}`)
  })
})
