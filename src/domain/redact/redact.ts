/**
 * Minimal placeholder redaction (bearer values and `*_KEY=` values only) until the full rule set of
 * issue 3 lands; the interface is final.
 */
export interface Redaction {
  readonly text: (s: string, liveEdge: boolean) => string
  readonly json: <A>(value: A) => A
  readonly segments: (parts: ReadonlyArray<string>, options: { before?: string; after?: string; liveEdge?: boolean }) => ReadonlyArray<string>
  readonly withSecret: (value: string) => Redaction
}

export const MASK = "***REDACTED***"

export const makeRedaction = (secrets: ReadonlyArray<string>): Redaction => {
  const text = (s: string): string => {
    let out = s.replace(/(Bearer\s+)[A-Za-z0-9._~+/=-]+/g, `$1${MASK}`).replace(/([A-Z0-9_]*_KEY\s*=\s*)[^\s"']+/g, `$1${MASK}`)
    for (const secret of secrets) if (secret.length > 0) out = out.split(secret).join(MASK)
    return out
  }
  const json = <A>(value: A): A => {
    if (typeof value === "string") return text(value) as A
    if (Array.isArray(value)) return value.map((v) => json(v)) as A
    if (value !== null && typeof value === "object") {
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, json(v)])) as A
    }
    return value
  }
  return {
    text: (s) => text(s),
    json,
    segments: (parts) => parts.map(text),
    withSecret: (value) => makeRedaction([...secrets, value])
  }
}
