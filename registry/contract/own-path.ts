// The one walker down a path of keys through parsed JSON, own properties only: a key such as
// "constructor", "__proto__" or "toString" is absent unless the data itself has it, never a value
// inherited from Object.prototype. Templates, reshape and the build's issue messages use it.

/** The value at `path` under `data`, or undefined when a step is missing or not an object. */
export function ownAt(data: unknown, path: Iterable<PropertyKey>): unknown {
  let cur = data;
  for (const key of path) {
    if (cur === null || typeof cur !== "object" || !Object.hasOwn(cur, key)) return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}
