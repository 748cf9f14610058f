/**
 * The one way to build a partial double of a service: `unscripted("Runs", "this RunsTest")(given)`
 * is the whole service, typed as it, with only the members the test gives. Any other member, when
 * called, is a defect naming the service, the member and the double ("Runs.stop is not scripted in
 * this RunsTest"), never a `TypeError` about `undefined` somewhere below (what a cast past the type
 * gives). So a double lists what its tests use and nothing else, and a new operation of the service
 * costs its doubles nothing.
 *
 * The missing member answers with a failed `Effect` (a defect). In Effect an `Effect` is also a
 * one-element `Stream`, so a member returning a stream fails the same way when the stream runs. A
 * missing member that is not a function (a value such as `profiles`) must be given.
 */
import { Effect } from "effect"

/** Members a probe may look for on any object (a promise's `then`, JSON, test printers): never invented. */
const PROBES = new Set(["then", "toJSON", "asymmetricMatch", "$$typeof", "nodeType", "@@__IMMUTABLE_ITERABLE__@@", "@@__IMMUTABLE_RECORD__@@"])

export const unscripted = <S extends object>(service: string, double = "this double") => (given: Partial<S>): S =>
  new Proxy(given as S, {
    get: (target, member, receiver) => {
      if (member in target || typeof member === "symbol" || PROBES.has(member)) return Reflect.get(target, member, receiver)
      return () => Effect.die(new Error(`${service}.${member} is not scripted in ${double} (it gives ${Object.keys(target).join(", ") || "nothing"})`))
    }
  })
