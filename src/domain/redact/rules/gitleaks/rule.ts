/**
 * The shape of one secret format, as gitleaks writes its rules: a leaf of its own, so that the
 * generated rules (`upstream.ts`) and the hand-kept ones (`data.ts`) both import it without either
 * importing the other.
 */
export interface AllowRegex {
  readonly target: "secret" | "match" | "line"
  readonly regex: string
}
export interface AllowWords {
  readonly target: "stopwords"
  readonly words: ReadonlyArray<string>
}
export interface GitleaksRule {
  readonly id: string
  readonly keywords: ReadonlyArray<string>
  readonly regex: string
  readonly group?: number
  readonly entropy?: number
  readonly allow?: ReadonlyArray<AllowRegex | AllowWords>
  /** Regexes the secret must each match (upstream's `!matchesAny(secret, …)`: a token with digits, say). */
  readonly require?: ReadonlyArray<string>
}
