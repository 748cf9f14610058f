/**
 * The SSRF guard of Client ID Metadata Document fetches (`services/oauth/metadataFetch.ts`): https
 * only, no credentials in the URL, never a metadata host, every address the host resolves to
 * checked; with no `oauth.client_metadata_allow`, public addresses only; with one, the webhook
 * rules (loopback only by an address entry).
 */
import { Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { parseAllowRule, type AllowRule } from "../../src/domain/a2a/webhookAllow.ts"
import { WebhookResolverTest } from "../../src/services/a2aPush/WebhookResolver.ts"
import { checkMetadataUrl } from "../../src/services/oauth/metadataFetch.ts"

const answers = new Map([["public.example", ["93.184.216.34"]], ["inside.example", ["10.0.0.5"]], ["mixed.example", ["93.184.216.34", "127.0.0.1"]], ["loop.example", ["127.0.0.1"]]])
const check = (url: string, rules: ReadonlyArray<string> = []) =>
  Effect.runPromise(Effect.either(checkMetadataUrl(url, rules.map((r) => parseAllowRule(r) as AllowRule))).pipe(Effect.provide(WebhookResolverTest(answers))))

const refusal = async (url: string, rules: ReadonlyArray<string> = []) => {
  const r = await check(url, rules)
  return Either.isLeft(r) ? r.left.message : null
}

describe("Client ID Metadata Document fetch guard", () => {
  it("takes a public https host and connects to the address it checked", async () => {
    const r = await check("https://public.example/client.json")
    expect(Either.getOrThrow(r).address).toBe("93.184.216.34")
  })

  it("refuses http, credentials, metadata hosts, and hosts that resolve to anything not public", async () => {
    expect(await refusal("http://public.example/client.json")).toMatch(/https only/)
    expect(await refusal("https://u:p@public.example/client.json")).toMatch(/user or password/)
    expect(await refusal("https://metadata.google.internal/x")).toMatch(/metadata service/)
    expect(await refusal("https://inside.example/client.json")).toMatch(/private address/)
    expect(await refusal("https://mixed.example/client.json")).toMatch(/loopback address/)
    expect(await refusal("https://127.0.0.1/client.json")).toMatch(/loopback address/)
    expect(await refusal("https://nowhere.example/client.json")).toMatch(/does not resolve/)
    expect(await refusal("not a url")).toMatch(/absolute URL/)
  })

  it("with an allow list, follows the webhook rules: loopback only by an address entry, never by name", async () => {
    expect(await refusal("https://127.0.0.1/client.json", ["127.0.0.1"])).toBeNull()
    expect(await refusal("https://loop.example/client.json", ["loop.example"])).toMatch(/loopback/)
    expect(await refusal("https://public.example/client.json", ["other.example"])).toMatch(/not in/)
    expect(await refusal("https://public.example/client.json", ["public.example"])).toBeNull()
  })
})
