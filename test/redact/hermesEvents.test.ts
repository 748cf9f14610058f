/**
 * The events a real Hermes sends come back as written: an approval's `pattern_key` is the name of
 * the rule that matched (`delete in root path`), not a secret, and a field name alone does not make
 * a value a secret when the value has no secret shape. Shapes as Hermes 0.20.0 sent them (keys in
 * its order), through the JSON walk (stored events) and as text (an event quoted in output).
 */
import { describe, expect, it } from "vitest"
import { makeRedaction, MASK } from "../../src/domain/redact/redact.ts"
import { HERMES_EVENTS } from "./hermesEvents.ts"

const r = makeRedaction([])

describe("real Hermes events", () => {
  it.each(HERMES_EVENTS.map((e, i) => [`${i} ${String(e["event"])}`, e] as const))("%s comes back as written", (_, e) => {
    expect(r.json(e)).toEqual(e)
    const text = JSON.stringify(e)
    expect(r.text(text, false)).toBe(text)
    expect(r.text(JSON.stringify(e, null, 2), false)).toBe(JSON.stringify(e, null, 2))
  })

  it("still masks a random value under a key name, and any value under a strong name", () => {
    expect(r.json({ signing_key: "k9Fq2LmZx7Rt4Wp1" })).toEqual({ signing_key: MASK })
    expect(r.json({ KEY: "hunter2hunter" })).toEqual({ KEY: MASK })
    expect(r.json({ password: "correct horse battery staple" })).toEqual({ password: MASK })
    expect(r.json({ api_key: "plain words here" })).toEqual({ api_key: MASK })
    expect(r.text('{"signing_key": "k9Fq2LmZx7Rt4Wp1"}', false)).toBe(`{"signing_key": "${MASK}"}`)
  })
})
