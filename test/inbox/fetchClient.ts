/**
 * A minimal client of the inbox page over real HTTP (tests): fetch with a cookie jar and no redirect
 * following, e.g. a second operator session beside a browser.
 */
export const makeClient = (base: string) => {
  const jar = new Map<string, string>()
  /** The Cookie header this client sends (for a request made without `send`, e.g. an event stream). */
  const cookies = () => [...jar].map(([k, v]) => `${k}=${v}`).join("; ")
  const send = async (method: string, p: string, form?: Record<string, string>) => {
    const res = await fetch(`${base}${p}`, {
      method,
      redirect: "manual",
      headers: {
        cookie: cookies(),
        ...(form === undefined ? {} : { "content-type": "application/x-www-form-urlencoded", origin: base })
      },
      ...(form === undefined ? {} : { body: new URLSearchParams(form).toString() })
    })
    for (const c of res.headers.getSetCookie()) {
      const [pair = ""] = c.split(";")
      const [name = "", value = ""] = pair.split("=")
      if (value === "") jar.delete(name)
      else jar.set(name, value)
    }
    return { status: res.status, location: res.headers.get("location"), headers: res.headers, body: await res.text() }
  }
  const csrfOf = (page: string) => /name="csrf" value="([^"]+)"/.exec(page)?.[1] ?? ""
  const signIn = async (key: string) => {
    const form = await send("GET", "/inbox/signin")
    return send("POST", "/inbox/signin", { csrf: csrfOf(form.body), key })
  }
  /** Decides a row as the page's form would (reading the session's CSRF token from the row page). */
  const decide = async (id: string, decision: string) => {
    const card = await send("GET", `/inbox/rows/${id}`)
    return send("POST", `/inbox/rows/${id}`, { csrf: csrfOf(card.body), decision })
  }
  return { send, csrfOf, signIn, decide, cookies }
}
