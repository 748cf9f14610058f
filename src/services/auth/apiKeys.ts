/**
 * Client and admin keys: `hal0bk_` (`BRIDGE_KEY_PREFIX`) + 32 random bytes in base62. Only the SHA-256 digest of a key is
 * ever stored; comparisons of digests are constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto"
import { BRIDGE_KEY_BODY_LENGTH, BRIDGE_KEY_PREFIX } from "../../domain/bridgeKeys.ts"
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

export const base62 = (bytes: Uint8Array): string => {
  let n = BigInt(`0x${Buffer.from(bytes).toString("hex") || "0"}`)
  let out = ""
  while (n > 0n) {
    out = ALPHABET[Number(n % 62n)]! + out
    n /= 62n
  }
  // 32 bytes need at most 43 base62 digits; pad so every key has the same length.
  return out.padStart(BRIDGE_KEY_BODY_LENGTH, "0")
}

export const newKey = (): string => BRIDGE_KEY_PREFIX + base62(randomBytes(32))

export const digestKey = (key: string): string => createHash("sha256").update(key, "utf8").digest("hex")

export const sameDigest = (a: string, b: string): boolean => {
  const x = Buffer.from(a, "hex")
  const y = Buffer.from(b, "hex")
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y)
}

/** The bearer token of an `Authorization` header, or undefined. */
export const bearerToken = (header: string | undefined | null): string | undefined => {
  if (header === undefined || header === null) return undefined
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)
  return m?.[1]
}
