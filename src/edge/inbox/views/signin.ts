/** The sign-in page: one password field for the admin key, and why the operator is here. */
import { type Html, html } from "../html.ts"
import { page } from "./layout.ts"

/** Fixed messages only: nothing from the request is ever echoed on this page. */
export type SignInNotice = "expired" | "signed_out" | "wrong_key" | "stale_form" | "required" | "too_many_attempts"

const NOTICES: Record<SignInNotice, { readonly cls: "notice" | "error"; readonly text: string }> = {
  expired: { cls: "error", text: "Your session ended. Sign in again to continue." },
  signed_out: { cls: "notice", text: "You are signed out." },
  wrong_key: { cls: "error", text: "That is not the admin key." },
  stale_form: { cls: "error", text: "This sign-in form is stale (its cookie is missing or was replaced). Try again." },
  required: { cls: "error", text: "Sign in with the admin key to see the inbox." },
  too_many_attempts: { cls: "error", text: "Too many wrong keys from this address. Sign-in is paused for a few minutes; try again later." }
}

export const signInPage = (formToken: string, notice: SignInNotice | null): Html => {
  const n = notice === null ? null : NOTICES[notice]
  return page({
    title: "Sign in",
    section: "signin",
    signedIn: null,
    content: html`<div class="signin">
<h1>Sign in</h1>
${n === null ? "" : html`<p class="${n.cls}" role="${n.cls === "error" ? "alert" : "status"}">${n.text}</p>`}
<p>The inbox is for the operator of this box. Sign in with the admin key: it is in <code>admin.key</code> in the bridge's data directory, unless <code>bridge.admin_key</code> is configured.</p>
<form method="post" action="/inbox/signin">
  <input type="hidden" name="csrf" value="${formToken}">
  <input type="text" name="username" value="admin" autocomplete="username" hidden>
  <label for="key">Admin key</label>
  <input type="password" id="key" name="key" autocomplete="current-password" required autofocus spellcheck="false">
  <button type="submit">Sign in</button>
</form>
</div>`
  })
}
