/**
 * Secret formats as data: the rules of gitleaks' default configuration (config/gitleaks.toml of
 * github.com/gitleaks/gitleaks at commit b58d3f10, 214 of its 222 rules), translated from Go's RE2
 * syntax to JavaScript: inline flags written out (`(?i)` and `(?-i:…)` as both cases of each
 * letter, `(?s:.)` as `[\s\S]`), POSIX classes as ranges, `\z` as `(?![\s\S])`. Each rule keeps
 * its keywords (lower case; a rule is tried only near one), the capture group that holds the
 * secret (0: the first group that matched, else the whole match), the least Shannon entropy of
 * the secret, and its allow-lists (regexes on the secret, the match or the line; stop-words).
 * One change: where a rule ends a token with gitleaks' terminator (a quote, white space, `;`, an
 * escaped newline or the end), it also accepts `&`, `,`, `)`, `]`, `}`, `<`, `>`, which end a
 * value in the URLs, JSON and markup an agent's output is full of (the Azure AD secret rule, which
 * has an end set of its own, also accepts `&`, `;`, `]`, `}`, `>`).
 * Left out: `curl-auth-user` (the bridge's curl --user rule, which keeps the user name), `freemius-secret-key` (needs a file path), `generic-api-key` (replaced by the assignment rule), `hashicorp-tf-password` (needs a file path), `kubernetes-secret-yaml` (needs a file path), `nuget-config-password` (needs a file path), `pkcs12-file` (needs a file path), `private-key` (the bridge's PEM rule, which keeps the BEGIN and END lines).
 * `gitleaks.ts` applies them; `test/redact/formats.ts` generates the test corpus from the same data.
 *
 * The rules are used under the MIT licence of gitleaks:
 *
 * MIT License
 *
 * Copyright (c) 2019 Zachary Rice
 *
 * Permission is hereby granted, free of charge, to any person obtaining a copy
 * of this software and associated documentation files (the "Software"), to deal
 * in the Software without restriction, including without limitation the rights
 * to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
 * copies of the Software, and to permit persons to whom the Software is
 * furnished to do so, subject to the following conditions:
 *
 * The above copyright notice and this permission notice shall be included in all
 * copies or substantial portions of the Software.
 *
 * THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
 * IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
 * FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
 * AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
 * LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
 * OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
 * SOFTWARE.
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
}

/** The global allow-list: a secret matching one of these is no secret. */
export const GLOBAL_ALLOW: ReadonlyArray<string> = [
  "^[tT][rR][uU][eE]|[fF][aA][lL][sS][eE]|[nN][uU][lL][lL]$",
  "^(?:[aA]+|[bB]+|[cC]+|[dD]+|[eE]+|[fF]+|[gG]+|[hH]+|[iI]+|[jJ]+|[kK]+|[lL]+|[mM]+|[nN]+|[oO]+|[pP]+|[qQ]+|[rR]+|[sS]+|[tT]+|[uU]+|[vV]+|[wW]+|[xX]+|[yY]+|[zZ]+|\\*+|\\.+)$",
  "^\\$(?:\\d+|{\\d+})$",
  "^\\$(?:[A-Z_]+|[a-z_]+)$",
  "^\\${(?:[A-Z_]+|[a-z_]+)}$",
  "^\\{\\{[ \\t]*[\\w ().|]+[ \\t]*}}$",
  "^\\$\\{\\{[ \\t]*(?:(?:env|github|secrets|vars)(?:\\.[A-Za-z]\\w+)+[\\w \"'&./=|]*)[ \\t]*}}$",
  "^%(?:[A-Z_]+|[a-z_]+)%$",
  "^%[+\\-# 0]?[bcdeEfFgGoOpqstTUvxX]$",
  "^\\{\\d{0,2}}$",
  "^@(?:[A-Z_]+|[a-z_]+)@$",
  "^/Users/[a-zA-Z0-9]+/[\\w .-/]+$",
  "^/(?:bin|etc|home|opt|tmp|usr|var)/[\\w ./-]+$"
]
/** The global stop-words: a secret holding one is an example. */
export const GLOBAL_STOPWORDS: ReadonlyArray<string> = ["014df517-39d1-4453-b7b3-9930c563627c","abcdefghijklmnopqrstuvwxyz"]

export const GITLEAKS_RULES: ReadonlyArray<GitleaksRule> = [
  { id: "1password-secret-key", keywords: ["a3-"], regex: "\\bA3-[A-Z0-9]{6}-(?:(?:[A-Z0-9]{11})|(?:[A-Z0-9]{6}-[A-Z0-9]{5}))-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\\b", entropy: 3.8 },
  { id: "1password-service-account-token", keywords: ["ops_"], regex: "ops_eyJ[a-zA-Z0-9+/]{250,}={0,3}", entropy: 4 },
  { id: "adafruit-api-key", keywords: ["adafruit"], regex: "[\\w.-]{0,50}?(?:[aA][dD][aA][fF][rR][uU][iI][tT])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9_-]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "adobe-client-id", keywords: ["adobe"], regex: "[\\w.-]{0,50}?(?:[aA][dD][oO][bB][eE])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "adobe-client-secret", keywords: ["p8e-"], regex: "\\b(p8e-[a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "age-secret-key", keywords: ["age-secret-key-1"], regex: "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}" },
  { id: "airtable-api-key", keywords: ["airtable"], regex: "[\\w.-]{0,50}?(?:[aA][iI][rR][tT][aA][bB][lL][eE])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{17})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "airtable-personnal-access-token", keywords: ["airtable"], regex: "\\b(pat[A-Za-z0-9]{14}\\.[a-f0-9]{64})\\b" },
  { id: "algolia-api-key", keywords: ["algolia"], regex: "[\\w.-]{0,50}?(?:[aA][lL][gG][oO][lL][iI][aA])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "alibaba-access-key-id", keywords: ["ltai"], regex: "\\b(LTAI[a-zA-Z0-9]{20})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "alibaba-secret-key", keywords: ["alibaba"], regex: "[\\w.-]{0,50}?(?:[aA][lL][iI][bB][aA][bB][aA])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{30})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "anthropic-admin-api-key", keywords: ["sk-ant-admin01"], regex: "\\b(sk-ant-admin01-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)" },
  { id: "anthropic-api-key", keywords: ["sk-ant-api03"], regex: "\\b(sk-ant-api03-[a-zA-Z0-9_\\-]{93}AA)(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)" },
  { id: "artifactory-api-key", keywords: ["akcp"], regex: "\\bAKCp[A-Za-z0-9]{69}\\b", entropy: 4.5 },
  { id: "artifactory-reference-token", keywords: ["cmvmd"], regex: "\\bcmVmd[A-Za-z0-9]{59}\\b", entropy: 4.5 },
  { id: "asana-client-id", keywords: ["asana"], regex: "[\\w.-]{0,50}?(?:[aA][sS][aA][nN][aA])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9]{16})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "asana-client-secret", keywords: ["asana"], regex: "[\\w.-]{0,50}?(?:[aA][sS][aA][nN][aA])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "atlassian-api-token", keywords: ["atlassian","confluence","jira","atatt3"], regex: "[\\w.-]{0,50}?(?:(?:ATLASSIAN|[Aa]tlassian)|(?:CONFLUENCE|[Cc]onfluence)|(?:JIRA|[Jj]ira))(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{20}[a-fA-F0-9]{4})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)|\\b([Aa][Tt][Aa][Tt][Tt]3[A-Za-za-zA-Z0-9_\\-=]{186})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3.5 },
  { id: "authress-service-client-access-key", keywords: ["sc_","ext_","scauth_","authress_"], regex: "\\b((?:sc|ext|scauth|authress)_[a-zA-Z0-9]{5,30}\\.[a-zA-Z0-9]{4,6}\\.(?:acc)[_-][a-zA-Z0-9-]{10,32}\\.[a-zA-Z0-9+/_=-]{30,120})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "aws-access-token", keywords: ["a3t","akia","asia","abia","acca"], regex: "\\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\\b", entropy: 3, allow: [{"target":"secret","regex":".+EXAMPLE$"}] },
  { id: "aws-amazon-bedrock-api-key-long-lived", keywords: ["absk"], regex: "\\b(ABSK[A-Za-z0-9+/]{109,269}={0,2})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "aws-amazon-bedrock-api-key-short-lived", keywords: ["bedrock-api-key-"], regex: "bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t", entropy: 3 },
  { id: "azure-ad-client-secret", keywords: ["q~"], regex: "(?:^|[\\\\'\"\\x60\\s>=:(,)])([a-zA-Z0-9_~.]{3}\\dQ~[a-zA-Z0-9_~.-]{31,34})(?:$|[\\\\'\"\\x60\\s<),&;\\]}>])", entropy: 3 },
  { id: "beamer-api-token", keywords: ["beamer"], regex: "[\\w.-]{0,50}?(?:[bB][eE][aA][mM][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([bB]_[a-zA-Z0-9=_\\-]{44})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "bitbucket-client-id", keywords: ["bitbucket"], regex: "[\\w.-]{0,50}?(?:[bB][iI][tT][bB][uU][cC][kK][eE][tT])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "bitbucket-client-secret", keywords: ["bitbucket"], regex: "[\\w.-]{0,50}?(?:[bB][iI][tT][bB][uU][cC][kK][eE][tT])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9=_\\-]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "bittrex-access-key", keywords: ["bittrex"], regex: "[\\w.-]{0,50}?(?:[bB][iI][tT][tT][rR][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "bittrex-secret-key", keywords: ["bittrex"], regex: "[\\w.-]{0,50}?(?:[bB][iI][tT][tT][rR][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "cisco-meraki-api-key", keywords: ["meraki"], regex: "[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Mm]eraki|MERAKI))(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9a-f]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "clickhouse-cloud-api-secret-key", keywords: ["4b1d"], regex: "\\b(4b1d[A-Za-z0-9]{38})\\b", entropy: 3 },
  { id: "clojars-api-token", keywords: ["clojars_"], regex: "[Cc][Ll][Oo][Jj][Aa][Rr][Ss]_[a-zA-Z0-9]{60}", entropy: 2 },
  { id: "cloudflare-api-key", keywords: ["cloudflare"], regex: "[\\w.-]{0,50}?(?:[cC][lL][oO][uU][dD][fF][lL][aA][rR][eE])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9_-]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "cloudflare-global-api-key", keywords: ["cloudflare"], regex: "[\\w.-]{0,50}?(?:[cC][lL][oO][uU][dD][fF][lL][aA][rR][eE])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{37})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "cloudflare-origin-ca-key", keywords: ["cloudflare","v1.0-"], regex: "\\b(v1\\.0-[a-f0-9]{24}-[a-f0-9]{146})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "codecov-access-token", keywords: ["codecov"], regex: "[\\w.-]{0,50}?(?:[cC][oO][dD][eE][cC][oO][vV])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "cohere-api-token", keywords: ["cohere","co_api_key"], regex: "[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:[cC][oO][hH][eE][rR][eE]|[Cc][Oo]_[Aa][Pp][Ii]_[Kk][Ee][Yy])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4 },
  { id: "coinbase-access-token", keywords: ["coinbase"], regex: "[\\w.-]{0,50}?(?:[cC][oO][iI][nN][bB][aA][sS][eE])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9_-]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "confluent-access-token", keywords: ["confluent"], regex: "[\\w.-]{0,50}?(?:[cC][oO][nN][fF][lL][uU][eE][nN][tT])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{16})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "confluent-secret-key", keywords: ["confluent"], regex: "[\\w.-]{0,50}?(?:[cC][oO][nN][fF][lL][uU][eE][nN][tT])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "contentful-delivery-api-token", keywords: ["contentful"], regex: "[\\w.-]{0,50}?(?:[cC][oO][nN][tT][eE][nN][tT][fF][uU][lL])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9=_\\-]{43})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "curl-auth-header", keywords: ["curl"], regex: "\\bcurl\\b(?:.*?|.*?(?:[\\r\\n]{1,2}.*?){1,5})[ \\t\\n\\r](?:-H|--header)(?:=|[ \\t]{0,5})(?:\"(?:[Aa][uU][tT][hH][oO][rR][iI][zZ][aA][tT][iI][oO][nN]:[ \\t]{0,5}(?:[Bb][aA][sS][iI][cC][ \\t]([a-zA-Z0-9+/]{8,}={0,3})|(?:[Bb][eE][aA][rR][eE][rR]|(?:[Aa][pP][iI]-)?[Tt][oO][kK][eE][nN])[ \\t]([\\w=~@.+/-]{8,})|([\\w=~@.+/-]{8,}))|(?:(?:[Xx]-(?:[a-zA-Z]+-)?)?(?:[Aa][pP][iI]-?)?(?:[Kk][eE][yY]|[Tt][oO][kK][eE][nN])):[ \\t]{0,5}([\\w=~@.+/-]{8,}))\"|'(?:[Aa][uU][tT][hH][oO][rR][iI][zZ][aA][tT][iI][oO][nN]:[ \\t]{0,5}(?:[Bb][aA][sS][iI][cC][ \\t]([a-zA-Z0-9+/]{8,}={0,3})|(?:[Bb][eE][aA][rR][eE][rR]|(?:[Aa][pP][iI]-)?[Tt][oO][kK][eE][nN])[ \\t]([\\w=~@.+/-]{8,})|([\\w=~@.+/-]{8,}))|(?:(?:[Xx]-(?:[a-zA-Z]+-)?)?(?:[Aa][pP][iI]-?)?(?:[Kk][eE][yY]|[Tt][oO][kK][eE][nN])):[ \\t]{0,5}([\\w=~@.+/-]{8,}))')(?:\\B|\\s|(?![\\s\\S]))", entropy: 2.75 },
  { id: "databricks-api-token", keywords: ["dapi"], regex: "\\b(dapi[a-f0-9]{32}(?:-\\d)?)(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "datadog-access-token", keywords: ["datadog"], regex: "[\\w.-]{0,50}?(?:[dD][aA][tT][aA][dD][oO][gG])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "defined-networking-api-token", keywords: ["dnkey"], regex: "[\\w.-]{0,50}?(?:[dD][nN][kK][eE][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([dD][nN][kK][eE][yY]-[a-zA-Z0-9=_\\-]{26}-[a-zA-Z0-9=_\\-]{52})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "digitalocean-access-token", keywords: ["doo_v1_"], regex: "\\b(doo_v1_[a-f0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "digitalocean-pat", keywords: ["dop_v1_"], regex: "\\b(dop_v1_[a-f0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "digitalocean-refresh-token", keywords: ["dor_v1_"], regex: "\\b([dD][oO][rR]_[vV]1_[a-fA-F0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "discord-api-token", keywords: ["discord"], regex: "[\\w.-]{0,50}?(?:[dD][iI][sS][cC][oO][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "discord-client-id", keywords: ["discord"], regex: "[\\w.-]{0,50}?(?:[dD][iI][sS][cC][oO][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9]{18})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "discord-client-secret", keywords: ["discord"], regex: "[\\w.-]{0,50}?(?:[dD][iI][sS][cC][oO][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9=_\\-]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "doppler-api-token", keywords: ["dp.pt."], regex: "dp\\.pt\\.[a-zA-Z0-9]{43}", entropy: 2 },
  { id: "droneci-access-token", keywords: ["droneci"], regex: "[\\w.-]{0,50}?(?:[dD][rR][oO][nN][eE][cC][iI])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "dropbox-api-token", keywords: ["dropbox"], regex: "[\\w.-]{0,50}?(?:[dD][rR][oO][pP][bB][oO][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{15})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "dropbox-long-lived-api-token", keywords: ["dropbox"], regex: "[\\w.-]{0,50}?(?:[dD][rR][oO][pP][bB][oO][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{11}([Aa][Aa][Aa][Aa][Aa][Aa][Aa][Aa][Aa][Aa])[a-zA-Z0-9\\-_=]{43})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "dropbox-short-lived-api-token", keywords: ["dropbox"], regex: "[\\w.-]{0,50}?(?:[dD][rR][oO][pP][bB][oO][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([sS][lL]\\.[a-zA-Z0-9\\-=_]{135})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "duffel-api-token", keywords: ["duffel_"], regex: "duffel_(?:test|live)_[a-zA-Z0-9_\\-=]{43}", entropy: 2 },
  { id: "dynatrace-api-token", keywords: ["dt0c01."], regex: "dt0c01\\.[a-zA-Z0-9]{24}\\.[a-zA-Z0-9]{64}", entropy: 4 },
  { id: "easypost-api-token", keywords: ["ezak"], regex: "\\bEZAK[a-zA-Z0-9]{54}\\b", entropy: 2 },
  { id: "easypost-test-api-token", keywords: ["eztk"], regex: "\\bEZTK[a-zA-Z0-9]{54}\\b", entropy: 2 },
  { id: "etsy-access-token", keywords: ["etsy"], regex: "[\\w.-]{0,50}?(?:(?:ETSY|[Ee]tsy))(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{24})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "facebook-access-token", keywords: ["facebook"], regex: "\\b(\\d{15,16}(\\||%)[0-9a-zA-Z\\-_]{27,40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "facebook-page-access-token", keywords: ["eaam","eaac"], regex: "\\b(EAA[MC][a-zA-Z0-9]{100,})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4 },
  { id: "facebook-secret", keywords: ["facebook"], regex: "[\\w.-]{0,50}?(?:[fF][aA][cC][eE][bB][oO][oO][kK])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "fastly-api-token", keywords: ["fastly"], regex: "[\\w.-]{0,50}?(?:[fF][aA][sS][tT][lL][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9=_\\-]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "finicity-api-token", keywords: ["finicity"], regex: "[\\w.-]{0,50}?(?:[fF][iI][nN][iI][cC][iI][tT][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "finicity-client-secret", keywords: ["finicity"], regex: "[\\w.-]{0,50}?(?:[fF][iI][nN][iI][cC][iI][tT][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{20})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "finnhub-access-token", keywords: ["finnhub"], regex: "[\\w.-]{0,50}?(?:[fF][iI][nN][nN][hH][uU][bB])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{20})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "flickr-access-token", keywords: ["flickr"], regex: "[\\w.-]{0,50}?(?:[fF][lL][iI][cC][kK][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "flutterwave-encryption-key", keywords: ["flwseck_test"], regex: "FLWSECK_TEST-[a-hA-H0-9]{12}", entropy: 2 },
  { id: "flutterwave-public-key", keywords: ["flwpubk_test"], regex: "FLWPUBK_TEST-[a-hA-H0-9]{32}-[Xx]", entropy: 2 },
  { id: "flutterwave-secret-key", keywords: ["flwseck_test"], regex: "FLWSECK_TEST-[a-hA-H0-9]{32}-[Xx]", entropy: 2 },
  { id: "flyio-access-token", keywords: ["fo1_","fm1","fm2_"], regex: "\\b((?:fo1_[\\w-]{43}|fm1[ar]_[a-zA-Z0-9+\\/]{100,}={0,3}|fm2_[a-zA-Z0-9+\\/]{100,}={0,3}))(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4 },
  { id: "frameio-api-token", keywords: ["fio-u-"], regex: "fio-u-[a-zA-Z0-9\\-_=]{64}" },
  { id: "freshbooks-access-token", keywords: ["freshbooks"], regex: "[\\w.-]{0,50}?(?:[fF][rR][eE][sS][hH][bB][oO][oO][kK][sS])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "gcp-api-key", keywords: ["aiza"], regex: "\\b(AIza[\\w-]{35})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4, allow: [{"target":"secret","regex":"AIzaSyabcdefghijklmnopqrstuvwxyz1234567"},{"target":"secret","regex":"AIzaSyAnLA7NfeLquW1tJFpx_eQCxoX-oo6YyIs"},{"target":"secret","regex":"AIzaSyCkEhVjf3pduRDt6d1yKOMitrUEke8agEM"},{"target":"secret","regex":"AIzaSyDMAScliyLx7F0NPDEJi1QmyCgHIAODrlU"},{"target":"secret","regex":"AIzaSyD3asb-2pEZVqMkmL6M9N6nHZRR_znhrh0"},{"target":"secret","regex":"AIzayDNSXIbFmlXbIE6mCzDLQAqITYefhixbX4A"},{"target":"secret","regex":"AIzaSyAdOS2zB6NCsk1pCdZ4-P6GBdi_UUPwX7c"},{"target":"secret","regex":"AIzaSyASWm6HmTMdYWpgMnjRBjxcQ9CKctWmLd4"},{"target":"secret","regex":"AIzaSyANUvH9H9BsUccjsu2pCmEkOPjjaXeDQgY"},{"target":"secret","regex":"AIzaSyA5_iVawFQ8ABuTZNUdcwERLJv_a_p4wtM"},{"target":"secret","regex":"AIzaSyA4UrcGxgwQFTfaI3no3t7Lt1sjmdnP5sQ"},{"target":"secret","regex":"AIzaSyDSb51JiIcB6OJpwwMicseKRhhrOq1cS7g"},{"target":"secret","regex":"AIzaSyBF2RrAIm4a0mO64EShQfqfd2AFnzAvvuU"},{"target":"secret","regex":"AIzaSyBcE-OOIbhjyR83gm4r2MFCu4MJmprNXsw"},{"target":"secret","regex":"AIzaSyB8qGxt4ec15vitgn44duC5ucxaOi4FmqE"},{"target":"secret","regex":"AIzaSyA8vmApnrHNFE0bApF4hoZ11srVL_n0nvY"}] },
  { id: "github-app-token", keywords: ["ghu_","ghs_"], regex: "(?:ghu|ghs)_[0-9a-zA-Z]{36}", entropy: 3 },
  { id: "github-fine-grained-pat", keywords: ["github_pat_"], regex: "github_pat_\\w{82}", entropy: 3 },
  { id: "github-oauth", keywords: ["gho_"], regex: "gho_[0-9a-zA-Z]{36}", entropy: 3 },
  { id: "github-pat", keywords: ["ghp_"], regex: "ghp_[0-9a-zA-Z]{36}", entropy: 3 },
  { id: "github-refresh-token", keywords: ["ghr_"], regex: "ghr_[0-9a-zA-Z]{36}", entropy: 3 },
  { id: "gitlab-cicd-job-token", keywords: ["glcbt-"], regex: "glcbt-[0-9a-zA-Z]{1,5}_[0-9a-zA-Z_-]{20}", entropy: 3 },
  { id: "gitlab-deploy-token", keywords: ["gldt-"], regex: "gldt-[0-9a-zA-Z_\\-]{20}", entropy: 3 },
  { id: "gitlab-feature-flag-client-token", keywords: ["glffct-"], regex: "glffct-[0-9a-zA-Z_\\-]{20}", entropy: 3 },
  { id: "gitlab-feed-token", keywords: ["glft-"], regex: "glft-[0-9a-zA-Z_\\-]{20}", entropy: 3 },
  { id: "gitlab-incoming-mail-token", keywords: ["glimt-"], regex: "glimt-[0-9a-zA-Z_\\-]{25}", entropy: 3 },
  { id: "gitlab-kubernetes-agent-token", keywords: ["glagent-"], regex: "glagent-[0-9a-zA-Z_\\-]{50}", entropy: 3 },
  { id: "gitlab-oauth-app-secret", keywords: ["gloas-"], regex: "gloas-[0-9a-zA-Z_\\-]{64}", entropy: 3 },
  { id: "gitlab-pat", keywords: ["glpat-"], regex: "glpat-[\\w-]{20}", entropy: 3 },
  { id: "gitlab-pat-routable", keywords: ["glpat-"], regex: "\\bglpat-[0-9a-zA-Z_-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b", entropy: 4 },
  { id: "gitlab-ptt", keywords: ["glptt-"], regex: "glptt-[0-9a-f]{40}", entropy: 3 },
  { id: "gitlab-rrt", keywords: ["gr1348941"], regex: "GR1348941[\\w-]{20}", entropy: 3 },
  { id: "gitlab-runner-authentication-token", keywords: ["glrt-"], regex: "glrt-[0-9a-zA-Z_\\-]{20}", entropy: 3 },
  { id: "gitlab-runner-authentication-token-routable", keywords: ["glrt-"], regex: "\\bglrt-t\\d_[0-9a-zA-Z_\\-]{27,300}\\.[0-9a-z]{2}[0-9a-z]{7}\\b", entropy: 4 },
  { id: "gitlab-scim-token", keywords: ["glsoat-"], regex: "glsoat-[0-9a-zA-Z_\\-]{20}", entropy: 3 },
  { id: "gitlab-session-cookie", keywords: ["_gitlab_session="], regex: "_gitlab_session=[0-9a-z]{32}", entropy: 3 },
  { id: "gitter-access-token", keywords: ["gitter"], regex: "[\\w.-]{0,50}?(?:[gG][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9_-]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "gocardless-api-token", keywords: ["live_","gocardless"], regex: "[\\w.-]{0,50}?(?:[gG][oO][cC][aA][rR][dD][lL][eE][sS][sS])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([lL][iI][vV][eE]_[a-zA-Z0-9\\-_=]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "grafana-api-key", keywords: ["eyjrijoi"], regex: "\\b([eE][yY][Jj][rR][Ii][jJ][oO][iI][A-Za-za-zA-Z0-9]{70,400}={0,3})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "grafana-cloud-api-token", keywords: ["glc_"], regex: "\\b([gG][lL][cC]_[A-Za-za-zA-Z0-9+/]{32,400}={0,3})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "grafana-service-account-token", keywords: ["glsa_"], regex: "\\b([gG][lL][sS][aA]_[A-Za-za-zA-Z0-9]{32}_[A-Fa-fa-fA-F0-9]{8})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "harness-api-key", keywords: ["pat.","sat."], regex: "(?:pat|sat)\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9]{24}\\.[a-zA-Z0-9]{20}" },
  { id: "hashicorp-tf-api-token", keywords: ["atlasv1"], regex: "[a-zA-Z0-9]{14}\\.(?:atlasv1)\\.[a-zA-Z0-9\\-_=]{60,70}", entropy: 3.5 },
  { id: "heroku-api-key", keywords: ["heroku"], regex: "[\\w.-]{0,50}?(?:[hH][eE][rR][oO][kK][uU])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "heroku-api-key-v2", keywords: ["hrku-aa"], regex: "\\b((HRKU-AA[0-9a-zA-Z_-]{58}))(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4 },
  { id: "hubspot-api-key", keywords: ["hubspot"], regex: "[\\w.-]{0,50}?(?:[hH][uU][bB][sS][pP][oO][tT])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "huggingface-access-token", keywords: ["hf_"], regex: "\\b(hf_(?:[a-zA-Z]{34}))(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "huggingface-organization-api-token", keywords: ["api_org_"], regex: "\\b(api_org_(?:[a-zA-Z]{34}))(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "infracost-api-token", keywords: ["ico-"], regex: "\\b(ico-[a-zA-Z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "intercom-api-key", keywords: ["intercom"], regex: "[\\w.-]{0,50}?(?:[iI][nN][tT][eE][rR][cC][oO][mM])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9=_\\-]{60})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "intra42-client-secret", keywords: ["intra","s-s4t2ud-","s-s4t2af-"], regex: "\\b(s-s4t2(?:ud|af)-[aAbBcCdDeEfF0123456789]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "jfrog-api-key", keywords: ["jfrog","artifactory","bintray","xray"], regex: "[\\w.-]{0,50}?(?:[jJ][fF][rR][oO][gG]|[aA][rR][tT][iI][fF][aA][cC][tT][oO][rR][yY]|[bB][iI][nN][tT][rR][aA][yY]|[xX][rR][aA][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{73})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "jfrog-identity-token", keywords: ["jfrog","artifactory","bintray","xray"], regex: "[\\w.-]{0,50}?(?:[jJ][fF][rR][oO][gG]|[aA][rR][tT][iI][fF][aA][cC][tT][oO][rR][yY]|[bB][iI][nN][tT][rR][aA][yY]|[xX][rR][aA][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "jwt", keywords: ["ey"], regex: "\\b(ey[a-zA-Z0-9]{17,}\\.ey[a-zA-Z0-9\\/\\\\_-]{17,}\\.(?:[a-zA-Z0-9\\/\\\\_-]{10,}={0,2})?)(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "jwt-base64", keywords: ["zxlk"], regex: "\\bZXlK(?:(?<alg>aGJHY2lPaU)|(?<apu>aGNIVWlPaU)|(?<apv>aGNIWWlPaU)|(?<aud>aGRXUWlPaU)|(?<b64>aU5qUWlP)|(?<crit>amNtbDBJanBi)|(?<cty>amRIa2lPaU)|(?<epk>bGNHc2lPbn)|(?<enc>bGJtTWlPaU)|(?<jku>cWEzVWlPaU)|(?<jwk>cWQyc2lPb)|(?<iss>cGMzTWlPaU)|(?<iv>cGRpSTZJ)|(?<kid>cmFXUWlP)|(?<key_ops>clpYbGZiM0J6SWpwY)|(?<kty>cmRIa2lPaUp)|(?<nonce>dWIyNWpaU0k2)|(?<p2c>d01tTWlP)|(?<p2s>d01uTWlPaU)|(?<ppt>d2NIUWlPaU)|(?<sub>emRXSWlPaU)|(?<svt>emRuUWlP)|(?<tag>MFlXY2lPaU)|(?<typ>MGVYQWlPaUp)|(?<url>MWNtd2l)|(?<use>MWMyVWlPaUp)|(?<ver>MlpYSWlPaU)|(?<version>MlpYSnphVzl1SWpv)|(?<x>NElqb2)|(?<x5c>NE5XTWlP)|(?<x5t>NE5YUWlPaU)|(?<x5ts256>NE5YUWpVekkxTmlJNkl)|(?<x5u>NE5YVWlPaU)|(?<zip>NmFYQWlPaU))[a-zA-Z0-9\\/\\\\_+\\-\\r\\n]{40,}={0,2}", entropy: 2 },
  { id: "kraken-access-token", keywords: ["kraken"], regex: "[\\w.-]{0,50}?(?:[kK][rR][aA][kK][eE][nN])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9\\/=_\\+\\-]{80,90})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "kucoin-access-token", keywords: ["kucoin"], regex: "[\\w.-]{0,50}?(?:[kK][uU][cC][oO][iI][nN])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{24})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "kucoin-secret-key", keywords: ["kucoin"], regex: "[\\w.-]{0,50}?(?:[kK][uU][cC][oO][iI][nN])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "launchdarkly-access-token", keywords: ["launchdarkly"], regex: "[\\w.-]{0,50}?(?:[lL][aA][uU][nN][cC][hH][dD][aA][rR][kK][lL][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9=_\\-]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "linear-api-key", keywords: ["lin_api_"], regex: "lin_api_[a-zA-Z0-9]{40}", entropy: 2 },
  { id: "linear-client-secret", keywords: ["linear"], regex: "[\\w.-]{0,50}?(?:[lL][iI][nN][eE][aA][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "linkedin-client-id", keywords: ["linkedin","linked_in","linked-in"], regex: "[\\w.-]{0,50}?(?:[lL][iI][nN][kK][eE][dD][_-]?[iI][nN])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{14})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "linkedin-client-secret", keywords: ["linkedin","linked_in","linked-in"], regex: "[\\w.-]{0,50}?(?:[lL][iI][nN][kK][eE][dD][_-]?[iI][nN])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{16})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "lob-api-key", keywords: ["test_","live_"], regex: "[\\w.-]{0,50}?(?:[lL][oO][bB])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}(([lL][iI][vV][eE]|[tT][eE][sS][tT])_[a-fA-F0-9]{35})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "lob-pub-api-key", keywords: ["test_pub","live_pub","_pub"], regex: "[\\w.-]{0,50}?(?:[lL][oO][bB])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}(([tT][eE][sS][tT]|[lL][iI][vV][eE])_[pP][uU][bB]_[a-fA-F0-9]{31})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "looker-client-id", keywords: ["looker"], regex: "[\\w.-]{0,50}?(?:[lL][oO][oO][kK][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{20})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "looker-client-secret", keywords: ["looker"], regex: "[\\w.-]{0,50}?(?:[lL][oO][oO][kK][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{24})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "mailchimp-api-key", keywords: ["mailchimp"], regex: "[\\w.-]{0,50}?(?:[Mm][aA][iI][lL][cC][hH][iI][mM][pP][Ss][Dd][Kk].[iI][nN][iI][tT][iI][aA][lL][iI][zZ][eE]|[mM][aA][iI][lL][cC][hH][iI][mM][pP])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{32}-[uU][sS]\\d\\d)(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "mailgun-private-api-token", keywords: ["mailgun"], regex: "[\\w.-]{0,50}?(?:[mM][aA][iI][lL][gG][uU][nN])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([kK][eE][yY]-[a-fA-F0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "mailgun-pub-key", keywords: ["mailgun"], regex: "[\\w.-]{0,50}?(?:[mM][aA][iI][lL][gG][uU][nN])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([pP][uU][bB][kK][eE][yY]-[a-fA-F0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "mailgun-signing-key", keywords: ["mailgun"], regex: "[\\w.-]{0,50}?(?:[mM][aA][iI][lL][gG][uU][nN])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-hA-H0-9]{32}-[a-hA-H0-9]{8}-[a-hA-H0-9]{8})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "mapbox-api-token", keywords: ["mapbox"], regex: "[\\w.-]{0,50}?(?:[mM][aA][pP][bB][oO][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([pP][kK]\\.[a-zA-Z0-9]{60}\\.[a-zA-Z0-9]{22})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "mattermost-access-token", keywords: ["mattermost"], regex: "[\\w.-]{0,50}?(?:[mM][aA][tT][tT][eE][rR][mM][oO][sS][tT])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{26})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "maxmind-license-key", keywords: ["_mmk"], regex: "\\b([A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk)(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4 },
  { id: "messagebird-api-token", keywords: ["messagebird","message-bird","message_bird"], regex: "[\\w.-]{0,50}?(?:[mM][eE][sS][sS][aA][gG][eE][_-]?[bB][iI][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{25})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "messagebird-client-id", keywords: ["messagebird","message-bird","message_bird"], regex: "[\\w.-]{0,50}?(?:[mM][eE][sS][sS][aA][gG][eE][_-]?[bB][iI][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "microsoft-teams-webhook", keywords: ["webhook.office.com","webhookb2","incomingwebhook"], regex: "https://[a-z0-9]+\\.webhook\\.office\\.com/webhookb2/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}@[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}/IncomingWebhook/[a-z0-9]{32}/[a-z0-9]{8}-([a-z0-9]{4}-){3}[a-z0-9]{12}" },
  { id: "netlify-access-token", keywords: ["netlify"], regex: "[\\w.-]{0,50}?(?:[nN][eE][tT][lL][iI][fF][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9=_\\-]{40,46})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "new-relic-browser-api-token", keywords: ["nrjs-"], regex: "[\\w.-]{0,50}?(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([Nn][Rr][Jj][Ss]-[a-fA-F0-9]{19})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "new-relic-insert-key", keywords: ["nrii-"], regex: "[\\w.-]{0,50}?(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([Nn][Rr][Ii][Ii]-[a-zA-Z0-9-]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "new-relic-user-api-id", keywords: ["new-relic","newrelic","new_relic"], regex: "[\\w.-]{0,50}?(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "new-relic-user-api-key", keywords: ["nrak"], regex: "[\\w.-]{0,50}?(?:[nN][eE][wW]-[rR][eE][lL][iI][cC]|[nN][eE][wW][rR][eE][lL][iI][cC]|[nN][eE][wW]_[rR][eE][lL][iI][cC])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([Nn][Rr][Aa][Kk]-[a-zA-Z0-9]{27})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "notion-api-token", keywords: ["ntn_"], regex: "\\b(ntn_[0-9]{11}[A-Za-z0-9]{32}[A-Za-z0-9]{3})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4 },
  { id: "npm-access-token", keywords: ["npm_"], regex: "\\b([nN][pP][mM]_[a-zA-Z0-9]{36})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 2 },
  { id: "nytimes-access-token", keywords: ["nytimes","new-york-times","newyorktimes"], regex: "[\\w.-]{0,50}?(?:[nN][yY][tT][iI][mM][eE][sS]|[nN][eE][wW]-[yY][oO][rR][kK]-[tT][iI][mM][eE][sS],|[nN][eE][wW][yY][oO][rR][kK][tT][iI][mM][eE][sS])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9=_\\-]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "octopus-deploy-api-key", keywords: ["api-"], regex: "\\b(API-[A-Z0-9]{26})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "okta-access-token", keywords: ["okta"], regex: "[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Oo]kta|OKTA))(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}(00[\\w=\\-]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4 },
  { id: "openai-api-key", keywords: ["t3blbkfj"], regex: "\\b(sk-(?:proj|svcacct|admin)-(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})T3BlbkFJ(?:[A-Za-z0-9_-]{74}|[A-Za-z0-9_-]{58})\\b|sk-[a-zA-Z0-9]{20}T3BlbkFJ[a-zA-Z0-9]{20})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "openshift-user-token", keywords: ["sha256~"], regex: "\\b(sha256~[\\w-]{43})(?:[^\\w-]|(?![\\s\\S]))", entropy: 3.5 },
  { id: "perplexity-api-key", keywords: ["pplx-"], regex: "\\b(pplx-[a-zA-Z0-9]{48})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$|\\b)", entropy: 4 },
  { id: "plaid-api-token", keywords: ["plaid"], regex: "[\\w.-]{0,50}?(?:[pP][lL][aA][iI][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([aA][cC][cC][eE][sS][sS]-(?:[sS][aA][nN][dD][bB][oO][xX]|[dD][eE][vV][eE][lL][oO][pP][mM][eE][nN][tT]|[pP][rR][oO][dD][uU][cC][tT][iI][oO][nN])-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "plaid-client-id", keywords: ["plaid"], regex: "[\\w.-]{0,50}?(?:[pP][lL][aA][iI][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{24})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3.5 },
  { id: "plaid-secret-key", keywords: ["plaid"], regex: "[\\w.-]{0,50}?(?:[pP][lL][aA][iI][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{30})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3.5 },
  { id: "planetscale-api-token", keywords: ["pscale_tkn_"], regex: "\\b(pscale_tkn_[\\w=\\.-]{32,64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "planetscale-oauth-token", keywords: ["pscale_oauth_"], regex: "\\b(pscale_oauth_[\\w=\\.-]{32,64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "planetscale-password", keywords: ["pscale_pw_"], regex: "\\b([pP][sS][cC][aA][lL][eE]_[pP][wW]_[\\w=\\.-]{32,64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "postman-api-token", keywords: ["pmak-"], regex: "\\b(PMAK-[a-fA-F0-9]{24}\\-[a-fA-F0-9]{34})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "prefect-api-token", keywords: ["pnu_"], regex: "\\b(pnu_[a-zA-Z0-9]{36})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "privateai-api-token", keywords: ["privateai","private_ai","private-ai"], regex: "[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:[pP][rR][iI][vV][aA][tT][eE][_-]?[aA][iI])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-z0-9]{32})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "pulumi-api-token", keywords: ["pul-"], regex: "\\b(pul-[a-f0-9]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "pypi-upload-token", keywords: ["pypi-ageichlwas5vcmc"], regex: "pypi-AgEIcHlwaS5vcmc[\\w-]{50,1000}", entropy: 3 },
  { id: "rapidapi-access-token", keywords: ["rapidapi"], regex: "[\\w.-]{0,50}?(?:[rR][aA][pP][iI][dD][aA][pP][iI])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9_-]{50})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "readme-api-token", keywords: ["rdme_"], regex: "\\b(rdme_[a-z0-9]{70})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "rubygems-api-token", keywords: ["rubygems_"], regex: "\\b(rubygems_[a-f0-9]{48})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "scalingo-api-token", keywords: ["tk-us-"], regex: "\\b(tk-us-[\\w-]{48})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "sendbird-access-id", keywords: ["sendbird"], regex: "[\\w.-]{0,50}?(?:[sS][eE][nN][dD][bB][iI][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "sendbird-access-token", keywords: ["sendbird"], regex: "[\\w.-]{0,50}?(?:[sS][eE][nN][dD][bB][iI][rR][dD])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "sendgrid-api-token", keywords: ["sg."], regex: "\\b(SG\\.[a-zA-Z0-9=_\\-\\.]{66})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "sendinblue-api-token", keywords: ["xkeysib-"], regex: "\\b(xkeysib-[a-f0-9]{64}\\-[a-zA-Z0-9]{16})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "sentry-access-token", keywords: ["sentry"], regex: "[\\w.-]{0,50}?(?:[sS][eE][nN][tT][rR][yY])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "sentry-org-token", keywords: ["sntrys_eyjpyxqio"], regex: "\\bsntrys_eyJpYXQiO[a-zA-Z0-9+/]{10,200}(?:LCJyZWdpb25fdXJs|InJlZ2lvbl91cmwi|cmVnaW9uX3VybCI6)[a-zA-Z0-9+/]{10,200}={0,2}_[a-zA-Z0-9+/]{43}(?:[^a-zA-Z0-9+/]|(?![\\s\\S]))", entropy: 4.5 },
  { id: "sentry-user-token", keywords: ["sntryu_"], regex: "\\b(sntryu_[a-f0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3.5 },
  { id: "settlemint-application-access-token", keywords: ["sm_aat"], regex: "\\b(sm_aat_[a-zA-Z0-9]{16})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "settlemint-personal-access-token", keywords: ["sm_pat"], regex: "\\b(sm_pat_[a-zA-Z0-9]{16})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "settlemint-service-access-token", keywords: ["sm_sat"], regex: "\\b(sm_sat_[a-zA-Z0-9]{16})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "shippo-api-token", keywords: ["shippo_"], regex: "\\b(shippo_(?:live|test)_[a-fA-F0-9]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "shopify-access-token", keywords: ["shpat_"], regex: "shpat_[a-fA-F0-9]{32}", entropy: 2 },
  { id: "shopify-custom-access-token", keywords: ["shpca_"], regex: "shpca_[a-fA-F0-9]{32}", entropy: 2 },
  { id: "shopify-private-app-access-token", keywords: ["shppa_"], regex: "shppa_[a-fA-F0-9]{32}", entropy: 2 },
  { id: "shopify-shared-secret", keywords: ["shpss_"], regex: "shpss_[a-fA-F0-9]{32}", entropy: 2 },
  { id: "sidekiq-secret", keywords: ["bundle_enterprise__contribsys__com","bundle_gems__contribsys__com"], regex: "[\\w.-]{0,50}?(?:[Bb][Uu][Nn][Dd][Ll][Ee]_[Ee][Nn][Tt][Ee][Rr][Pp][Rr][Ii][Ss][Ee]__[Cc][Oo][Nn][Tt][Rr][Ii][Bb][Ss][Yy][Ss]__[Cc][Oo][Mm]|[Bb][Uu][Nn][Dd][Ll][Ee]_[Gg][Ee][Mm][Ss]__[Cc][Oo][Nn][Tt][Rr][Ii][Bb][Ss][Yy][Ss]__[Cc][Oo][Mm])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-fA-F0-9]{8}:[a-fA-F0-9]{8})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "sidekiq-sensitive-url", keywords: ["gems.contribsys.com","enterprise.contribsys.com"], regex: "\\b[hH][tT][tT][pP][sS]?://([a-fA-F0-9]{8}:[a-fA-F0-9]{8})@(?:[gG][eE][mM][sS].[cC][oO][nN][tT][rR][iI][bB][sS][yY][sS].[cC][oO][mM]|[eE][nN][tT][eE][rR][pP][rR][iI][sS][eE].[cC][oO][nN][tT][rR][iI][bB][sS][yY][sS].[cC][oO][mM])(?:[\\/|\\#|\\?|:]|$)" },
  { id: "slack-app-token", keywords: ["xapp"], regex: "[xX][aA][pP][pP]-\\d-[A-Za-z0-9]+-\\d+-[a-zA-Z0-9]+", entropy: 2 },
  { id: "slack-bot-token", keywords: ["xoxb"], regex: "xoxb-[0-9]{10,13}-[0-9]{10,13}[a-zA-Z0-9-]*", entropy: 3 },
  { id: "slack-config-access-token", keywords: ["xoxe.xoxb-","xoxe.xoxp-"], regex: "[xX][oO][xX][eE].[xX][oO][xX][bBpP]-\\d-[A-Za-z0-9]{163,166}", entropy: 2 },
  { id: "slack-config-refresh-token", keywords: ["xoxe-"], regex: "[xX][oO][xX][eE]-\\d-[A-Za-z0-9]{146}", entropy: 2 },
  { id: "slack-legacy-bot-token", keywords: ["xoxb"], regex: "xoxb-[0-9]{8,14}-[a-zA-Z0-9]{18,26}", entropy: 2 },
  { id: "slack-legacy-token", keywords: ["xoxo","xoxs"], regex: "xox[os]-\\d+-\\d+-\\d+-[a-fA-F\\d]+", entropy: 2 },
  { id: "slack-legacy-workspace-token", keywords: ["xoxa","xoxr"], regex: "xox[ar]-(?:\\d-)?[0-9a-zA-Z]{8,48}", entropy: 2 },
  { id: "slack-user-token", keywords: ["xoxp-","xoxe-"], regex: "xox[pe](?:-[0-9]{10,13}){3}-[a-zA-Z0-9-]{28,34}", entropy: 2 },
  { id: "slack-webhook-url", keywords: ["hooks.slack.com"], regex: "(?:https?://)?hooks.slack.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,56}" },
  { id: "snyk-api-token", keywords: ["snyk"], regex: "[\\w.-]{0,50}?(?:[sS][nN][yY][kK][_.-]?(?:(?:[aA][pP][iI]|[oO][aA][uU][tT][hH])[_.-]?)?(?:[kK][eE][yY]|[tT][oO][kK][eE][nN]))(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "sonar-api-token", keywords: ["sonar"], regex: "[\\w.-]{0,50}?(?:[sS][oO][nN][aA][rR][_.-]?([lL][oO][gG][iI][nN]|[tT][oO][kK][eE][nN]))(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}((?:[sS][qQ][uU]_|[sS][qQ][pP]_|[sS][qQ][aA]_)?[a-zA-Z0-9=_\\-]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", group: 2 },
  { id: "sourcegraph-access-token", keywords: ["sgp_","sourcegraph"], regex: "\\b(\\b([sS][gG][pP]_(?:[a-fA-FA-Fa-f0-9]{16}|[lL][oO][cC][aA][lL])_[a-fA-FA-Fa-f0-9]{40}|[sS][gG][pP]_[a-fA-FA-Fa-f0-9]{40}|[a-fA-FA-Fa-f0-9]{40})\\b)(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "square-access-token", keywords: ["sq0atp-","eaaa"], regex: "\\b((?:EAAA|sq0atp-)[\\w-]{22,60})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "squarespace-access-token", keywords: ["squarespace"], regex: "[\\w.-]{0,50}?(?:[sS][qQ][uU][aA][rR][eE][sS][pP][aA][cC][eE])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "stripe-access-token", keywords: ["sk_test","sk_live","sk_prod","rk_test","rk_live","rk_prod"], regex: "\\b((?:sk|rk)_(?:test|live|prod)_[a-zA-Z0-9]{10,99})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 2 },
  { id: "sumologic-access-id", keywords: ["sumo"], regex: "[\\w.-]{0,50}?(?:[\\w.-]{0,50}?(?:(?:[Ss]umo|SUMO))(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3})(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}(su[a-zA-Z0-9]{12})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3 },
  { id: "sumologic-access-token", keywords: ["sumo"], regex: "[\\w.-]{0,50}?(?:(?:[Ss]umo|SUMO))(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{64})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)", entropy: 3 },
  { id: "telegram-bot-api-token", keywords: ["telegr"], regex: "[\\w.-]{0,50}?(?:[tT][eE][lL][eE][gG][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9]{5,16}:(?:A)[a-zA-Z0-9_\\-]{34})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "travisci-access-token", keywords: ["travis"], regex: "[\\w.-]{0,50}?(?:[tT][rR][aA][vV][iI][sS])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{22})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "twilio-api-key", keywords: ["sk"], regex: "SK[0-9a-fA-F]{32}", entropy: 3 },
  { id: "twitch-api-token", keywords: ["twitch"], regex: "[\\w.-]{0,50}?(?:[tT][wW][iI][tT][cC][hH])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{30})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "twitter-access-secret", keywords: ["twitter"], regex: "[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{45})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "twitter-access-token", keywords: ["twitter"], regex: "[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([0-9]{15,25}-[a-zA-ZA-Za-z0-9]{20,40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "twitter-api-key", keywords: ["twitter"], regex: "[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{25})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "twitter-api-secret", keywords: ["twitter"], regex: "[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{50})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "twitter-bearer-token", keywords: ["twitter"], regex: "[\\w.-]{0,50}?(?:[tT][wW][iI][tT][tT][eE][rR])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([Aa]{22}[a-zA-ZA-Za-z0-9%]{80,100})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "typeform-api-token", keywords: ["tfp_"], regex: "[\\w.-]{0,50}?(?:[tT][yY][pP][eE][fF][oO][rR][mM])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([tT][fF][pP]_[a-zA-Z0-9\\-_\\.=]{59})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "vault-batch-token", keywords: ["hvb."], regex: "\\b(hvb\\.[\\w-]{138,300})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 4 },
  { id: "vault-service-token", keywords: ["hvs.","s."], regex: "\\b((?:hvs\\.[\\w-]{90,120}|s\\.(?:[a-zA-Z0-9]{24})))(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nr]|$)", entropy: 3.5, allow: [{"target":"secret","regex":"s\\.[A-Za-z]{24}"}] },
  { id: "yandex-access-token", keywords: ["yandex"], regex: "[\\w.-]{0,50}?(?:[yY][aA][nN][dD][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([tT]1\\.[A-Za-z0-9a-zA-Z_-]+[=]{0,2}\\.[A-Za-z0-9a-zA-Z_-]{86}[=]{0,2})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "yandex-api-key", keywords: ["yandex"], regex: "[\\w.-]{0,50}?(?:[yY][aA][nN][dD][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([Aa][Qq][Vv][Nn][A-Za-za-zA-Z0-9_\\-]{35,38})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "yandex-aws-access-token", keywords: ["yandex"], regex: "[\\w.-]{0,50}?(?:[yY][aA][nN][dD][eE][xX])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([Yy][Cc][a-zA-ZA-Za-z0-9_\\-]{38})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
  { id: "zendesk-secret-key", keywords: ["zendesk"], regex: "[\\w.-]{0,50}?(?:[zZ][eE][nN][dD][eE][sS][kK])(?:[ \\t\\w.-]{0,20})[\\s'\"]{0,3}(?:=|>|:{1,3}=|\\|\\||:|=>|\\?=|,)[\\x60'\"\\s=]{0,5}([a-zA-Z0-9]{40})(?:[\\x60'\"\\s;&,)\\]}<>]|\\\\[nNrR]|$)" },
]
