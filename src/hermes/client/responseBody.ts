/**
 * A response's body as a Node readable. The platform's undici client keeps undici's own body (a
 * `Readable`) on the response as `source.body` (under the platform's interruptible wrapper, as
 * `original.source.body`); reading it directly is what keeps a parked event stream small
 * (`sseBody.ts`).
 *
 * The platform aborts a request whose response object is garbage-collected unread (a
 * FinalizationRegistry keyed on it); a caller reading the raw body therefore keeps the response
 * itself reachable until it is done (`operations.ts`, `readEvents`). A response of any other client
 * (none in the product; a future platform that renames the field) has its body adapted from the
 * platform's `stream` instead, so such a change costs memory, never correctness.
 * `test/hermes/sseBody.test.ts` fails if the product's client stops giving the raw body.
 */
import type { HttpClientResponse } from "@effect/platform"
import * as NodeStream from "@effect/platform-node/NodeStream"
import { Readable } from "node:stream"

interface Wrapped {
  /** The platform's interruptible wrapper keeps the client's own response here. */
  readonly original?: unknown
  /** The undici client's response keeps undici's answer (status, headers, body) here. */
  readonly source?: { readonly body?: unknown }
}

/** undici's body, when the response is the undici client's (under the platform's wrapper or not). */
export const undiciBody = (response: HttpClientResponse.HttpClientResponse): Readable | undefined => {
  let r = response as unknown as Wrapped | undefined
  for (let depth = 0; r !== undefined && depth < 3; depth++) {
    if (r.source?.body instanceof Readable) return r.source.body
    r = typeof r.original === "object" && r.original !== null ? (r.original as Wrapped) : undefined
  }
  return undefined
}

export const responseBody = (response: HttpClientResponse.HttpClientResponse): Readable =>
  undiciBody(response) ?? NodeStream.toReadableNever(response.stream)
