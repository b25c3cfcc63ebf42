/**
 * JSON merge patch (RFC 7386) and JSON patch (RFC 6902).
 *
 * @module
 */

import { isObject, jsonEqual } from "../../_internal/json.ts";
import { own, setOwn } from "../../_internal/own.ts";

/** A JSON value. */
export type Json =
  | null
  | boolean
  | number
  | string
  | Json[]
  | { [key: string]: Json };

/** Deep copy of a JSON value. */
export function clone<T>(value: T): T {
  return value === undefined ? value : JSON.parse(JSON.stringify(value));
}

/**
 * Applies a merge patch: `null` removes a member, objects merge key by key,
 * and any other value replaces. Answers a new value.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isObject(target) ? clone(target) : {};
  // Own keys only: `constructor` is a field, `__proto__` is not the prototype.
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else setOwn(out, key, mergePatch(own(out, key), value));
  }
  return out;
}

/** A JSON patch operation failed; the message says why. */
export class PatchError extends Error {
  /** Builds the failure. */
  constructor(message: string) {
    super(message);
    this.name = "PatchError";
  }
}

function pointer(path: unknown): string[] {
  if (typeof path !== "string") throw new PatchError("missing path");
  if (path === "") return [];
  if (!path.startsWith("/")) {
    throw new PatchError(`invalid JSON pointer "${path}"`);
  }
  return path.slice(1).split("/").map((p) =>
    p.replaceAll("~1", "/").replaceAll("~0", "~")
  );
}

function parentOf(
  doc: unknown,
  parts: string[],
  path: string,
): { parent: unknown; key: string } {
  let at = doc;
  for (const part of parts.slice(0, -1)) {
    if (Array.isArray(at)) at = at[Number(part)];
    else if (isObject(at)) at = own(at, part);
    else at = undefined;
    if (at === undefined) {
      throw new PatchError(`doc is missing path: "${path}"`);
    }
  }
  return { parent: at, key: parts[parts.length - 1] ?? "" };
}

function get(doc: unknown, path: string): unknown {
  let at = doc;
  for (const part of pointer(path)) {
    if (Array.isArray(at)) at = at[Number(part)];
    else if (isObject(at)) at = own(at, part);
    else return undefined;
  }
  return at;
}

function index(
  key: string,
  length: number,
  adding: boolean,
  path: string,
): number {
  if (adding && key === "-") return length;
  const i = Number(key);
  if (!/^\d+$/.test(key) || i > length || (!adding && i === length)) {
    throw new PatchError(`index out of bounds at "${path}"`);
  }
  return i;
}

function add(doc: unknown, path: string, value: unknown): unknown {
  const parts = pointer(path);
  if (parts.length === 0) return clone(value);
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    parent.splice(index(key, parent.length, true, path), 0, clone(value));
  } else if (isObject(parent)) setOwn(parent, key, clone(value));
  else throw new PatchError(`doc is missing path: "${path}"`);
  return doc;
}

function remove(doc: unknown, path: string): unknown {
  const parts = pointer(path);
  const { parent, key } = parentOf(doc, parts, path);
  if (Array.isArray(parent)) {
    parent.splice(index(key, parent.length, false, path), 1);
  } else if (isObject(parent) && Object.hasOwn(parent, key)) {
    delete parent[key];
  } else {
    throw new PatchError(
      `unable to remove nonexistent key: ${key}: missing value`,
    );
  }
  return doc;
}

/**
 * Applies a JSON patch (add, remove, replace, move, copy, test). Answers a new
 * value; throws {@linkcode PatchError} when an operation fails.
 */
export function jsonPatch(target: unknown, patch: unknown): unknown {
  if (!Array.isArray(patch)) {
    throw new PatchError("a JSON patch must be an array of operations");
  }
  let doc = clone(target);
  for (const op of patch) {
    if (!isObject(op)) throw new PatchError("invalid operation");
    const path = String(op.path);
    switch (op.op) {
      case "add":
        doc = add(doc, path, op.value);
        break;
      case "remove":
        doc = remove(doc, path);
        break;
      case "replace":
        if (get(doc, path) === undefined) {
          throw new PatchError(
            `replace operation does not apply: doc is missing key: ${path}: missing value`,
          );
        }
        doc = pointer(path).length === 0
          ? clone(op.value)
          : add(remove(doc, path), path, op.value);
        break;
      case "move": {
        const value = get(doc, String(op.from));
        if (value === undefined) {
          throw new PatchError(`doc is missing from path: ${op.from}`);
        }
        doc = add(remove(doc, String(op.from)), path, value);
        break;
      }
      case "copy": {
        const value = get(doc, String(op.from));
        if (value === undefined) {
          throw new PatchError(`doc is missing from path: ${op.from}`);
        }
        doc = add(doc, path, value);
        break;
      }
      case "test":
        if (!jsonEqual(get(doc, path), op.value)) {
          throw new PatchError(`testing value ${path} failed: test failed`);
        }
        break;
      default:
        throw new PatchError(`unexpected operation: ${String(op.op)}`);
    }
  }
  return doc;
}
