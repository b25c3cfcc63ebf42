// Reads and writes of keys that come from outside (an object's field names,
// a patch's, a schema's) that never reach the prototype: a key such as
// `constructor`, `toString`, `valueOf` or `__proto__` is a field like any
// other, never an inherited function or the object's prototype.

/** The object's own value at `key`, or `undefined`. */
export function own(record: object, key: string): unknown {
  return Object.hasOwn(record, key)
    ? (record as Record<string, unknown>)[key]
    : undefined;
}

/** Sets an own, enumerable property, even one named `__proto__`. */
export function setOwn(
  record: Record<string, unknown>,
  key: string,
  value: unknown,
): void {
  // Assigning `__proto__` would change the prototype instead.
  if (key === "__proto__") {
    Object.defineProperty(record, key, {
      value,
      writable: true,
      enumerable: true,
      configurable: true,
    });
  } else record[key] = value;
}
