// Preloaded (`node --import`) into server-everything by scripts/bench-peers.ts: its `app.listen(PORT)`
// takes no host, so it would listen on every interface; this binds a listen given only a port to
// 127.0.0.1 instead, so that the bench stays on loopback. Plain JS: it runs under plain node.
import net from "node:net"

const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  if ((typeof args[0] === "number" || (typeof args[0] === "string" && /^\d+$/.test(args[0]))) && typeof args[1] !== "string") {
    return listen.call(this, Number(args[0]), "127.0.0.1", ...args.slice(1))
  }
  return listen.apply(this, args)
}
