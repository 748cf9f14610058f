/** A gauge or counter of a test daemon's `/metrics`, read as the operator's scraper would. */
export const metricValue = async (daemon: { readonly url: string; readonly adminKey: string }, name: string): Promise<number> => {
  const text = await (await fetch(`${daemon.url}/metrics`, { headers: { authorization: `Bearer ${daemon.adminKey}` } })).text()
  // Every sample carries labels (at least `replica`): the value is the line's last field.
  const line = text.split("\n").find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`))
  return line === undefined ? Number.NaN : Number(line.split(" ").at(-1))
}
