/**
 * The shape of one secret format, as gitleaks' rules have it (`data.ts` holds the rules,
 * `upstream.ts` the ones generated from gitleaks' own file by `scripts/rules-refresh.ts`). A leaf,
 * so the generated file and the rules that include it do not import each other.
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
