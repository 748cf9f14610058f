/**
 * A double of a service with only the members a test needs, typed as the whole service: a member
 * the test did not give is a defect naming the service and the member the code under test reached
 * for, not a `TypeError` about `undefined` somewhere below (what a cast past the type gives).
 */
export const partialDouble = <S extends object>(service: string, members: Partial<S>): S =>
  new Proxy(members as S, {
    get: (target, member, receiver) => {
      if (member in target || typeof member === "symbol" || member === "then") return Reflect.get(target, member, receiver)
      throw new Error(`${service}.${member} is not part of this test's double (it gives ${Object.keys(target).join(", ") || "nothing"})`)
    }
  })
