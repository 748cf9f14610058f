/**
 * What a `SendMessage` asks for, checked before anything is started or answered, so that a refused
 * message records nothing: text parts only (a file or data part is the spec's "content type not
 * supported"), at most A2A_INPUT_MAX_BYTES of text, a messageId.
 */
import type { Message, SendMessageRequest } from "@a2a-js/sdk"
import { ContentTypeNotSupportedError, RequestMalformedError } from "@a2a-js/sdk/errors"
import { A2A_INPUT_MAX_BYTES, kib } from "../../domain/limits.ts"

/** The agent a message goes to when its metadata names none. */
export const DEFAULT_AGENT = "hermes"

export interface MessageInput {
  readonly message: Message
  readonly text: string
  readonly agent: string
}

const agentIn = (metadata: Record<string, unknown> | undefined): string | undefined => {
  const agent = metadata?.["agent"]
  return typeof agent === "string" && agent.length > 0 ? agent : undefined
}

/** The message's input, or throws the A2A error that refuses it. */
export const messageInput = (params: SendMessageRequest): MessageInput => {
  const message = params.message
  if (message === undefined) throw new RequestMalformedError("params.message is required")
  if (message.messageId.length === 0) throw new RequestMalformedError("message.messageId is required")
  if (message.parts.length === 0) throw new RequestMalformedError("message.parts must hold at least one text part")
  const texts: Array<string> = []
  let bytes = 0
  for (const part of message.parts) {
    if (part.content?.$case !== "text") {
      throw new ContentTypeNotSupportedError(
        `the bridge takes text parts only (this message has a ${part.content?.$case ?? "empty"} part${part.mediaType === "" ? "" : ` of ${part.mediaType}`})`
      )
    }
    bytes += Buffer.byteLength(part.content.value, "utf8")
    if (bytes > A2A_INPUT_MAX_BYTES) throw new RequestMalformedError(`the message's text is over ${kib(A2A_INPUT_MAX_BYTES)}`)
    texts.push(part.content.value)
  }
  const text = texts.join("\n")
  if (text.trim().length === 0) throw new RequestMalformedError("the message's text parts are empty")
  return { message, text, agent: agentIn(message.metadata) ?? agentIn(params.metadata) ?? DEFAULT_AGENT }
}
