/**
 * Hermes's event-stream decoding as the follow runs it (`readBodyEvents` over a Node readable),
 * fed with byte chunks exactly as given: each chunk is one read of the body.
 */
import { Effect } from "effect"
import { Readable } from "node:stream"
import type { HermesEvent } from "../../../src/hermes/client/HermesClient.ts"
import { HermesTransport } from "../../../src/hermes/client/failure.ts"
import { readBodyEvents } from "../../../src/hermes/client/sseBody.ts"

/** A body of these chunks, one read each (object mode keeps them apart). */
export const bodyOf = (chunks: Iterable<Uint8Array>): Readable => Readable.from(chunks, { objectMode: true })

export const broke = (cause: unknown) =>
  new HermesTransport({ agent: "hermes", route: "GET /v1/runs/{id}/events", detail: `the event stream broke (${String(cause)})` })

/** Every event of the chunks, in order. */
export const bodyEvents = (chunks: Iterable<Uint8Array>) =>
  Effect.suspend(() => {
    const seen: Array<HermesEvent> = []
    return readBodyEvents(bodyOf(chunks), broke, (e) => Effect.sync(() => seen.push(e) > 0)).pipe(Effect.as(seen as ReadonlyArray<HermesEvent>))
  })
