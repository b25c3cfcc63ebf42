// Deep-freezing of the copies a shared store holds: every reader gets the
// same object, so none may change it.

/**
 * Freezes an object and everything reachable from it (plain objects and
 * arrays, as JSON decodes them), and answers it. Already frozen parts are
 * not walked again.
 */
export function deepFreeze<T>(value: T): T {
  freeze(value);
  return value;
}

function freeze(value: unknown): void {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) {
    return;
  }
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (const item of value) freeze(item);
    return;
  }
  for (const key in value) freeze((value as Record<string, unknown>)[key]);
}
