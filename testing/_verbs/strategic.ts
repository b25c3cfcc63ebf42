/**
 * Strategic merge patches of built-in kinds, as the API server applies
 * them: lists with a merge key (containers, volumes and env by `name`,
 * container ports by `containerPort`, a Service's by `port`, conditions
 * by `type`, ...) merge item by item, `finalizers` merge as a set, other
 * lists are replaced; the `$patch` (`replace`, `delete`, `merge`),
 * `$deleteFromPrimitiveList/<field>`, `$retainKeys` and
 * `$setElementOrder/<field>` directives are read.
 *
 * @module
 */
import { own, setOwn } from "../../_internal/own.ts";
import { clone, PatchError } from "./patch.ts";
import { isObject } from "../_store/objects.ts";
import type { Schema } from "../_apply/fields.ts";

type Obj = Record<string, unknown>;

/** Applies a strategic merge patch to `target`, by `schema`'s list types. */
export function strategicMerge(
  target: unknown,
  patch: unknown,
  schema: Schema,
): unknown {
  return mergeObject(target, patch, schema, []);
}

function withoutDirectives(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDirectives);
  if (!isObject(value)) return value;
  const out: Obj = {};
  for (const [key, item] of Object.entries(value)) {
    if (key.startsWith("$")) continue;
    setOwn(out, key, withoutDirectives(item));
  }
  return out;
}

function mergeObject(
  target: unknown,
  patch: unknown,
  schema: Schema,
  fields: string[],
): unknown {
  if (!isObject(patch)) return clone(patch);
  const directive = patch.$patch;
  if (directive === "replace") return withoutDirectives(patch);
  if (directive === "delete") return undefined;
  if (directive !== undefined && directive !== "merge") {
    throw new PatchError(`unknown patch type: ${JSON.stringify(directive)}`);
  }
  const out: Obj = isObject(target) ? clone(target) : {};
  const retain = patch.$retainKeys;
  if (Array.isArray(retain)) {
    for (const key of Object.keys(out)) {
      if (!retain.includes(key) && !Object.hasOwn(patch, key)) delete out[key];
    }
  }
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith("$deleteFromPrimitiveList/")) {
      const field = key.slice("$deleteFromPrimitiveList/".length);
      const list = own(out, field);
      if (Array.isArray(list) && Array.isArray(value)) {
        setOwn(out, field, list.filter((item) => !value.includes(item)));
      }
      continue;
    }
    if (key.startsWith("$")) continue;
    if (value === null) {
      delete out[key];
      continue;
    }
    const at = [...fields, key];
    const merged = Array.isArray(value)
      ? mergeList(own(out, key), value, schema, at)
      : mergeObject(own(out, key), value, schema, at);
    if (merged === undefined) delete out[key];
    else setOwn(out, key, merged);
  }
  return out;
}

function mergeList(
  target: unknown,
  patch: unknown[],
  schema: Schema,
  fields: string[],
): unknown[] {
  const live = Array.isArray(target) ? target : [];
  const type = schema.list(fields);
  // New items come first, then the live ones (merged in place), as the API
  // server orders them (recorded in `builtin-strategic`).
  if (type === "set") {
    const out = [...new Set(patch)];
    for (const item of live) if (!out.includes(item)) out.push(item);
    return out;
  }
  if (type === "atomic" || !Array.isArray(type)) {
    return patch.map(withoutDirectives);
  }
  // The strategic merge key is the first list-map key (a container port's
  // `containerPort`, not its protocol).
  const key = type[0]!;
  if (patch.some((item) => isObject(item) && item.$patch === "replace")) {
    return patch.filter((item) => !(isObject(item) && item.$patch))
      .map(withoutDirectives);
  }
  const added: unknown[] = [];
  const kept = live.map((item) => clone(item));
  for (const item of patch) {
    if (!isObject(item)) continue;
    const at = kept.findIndex((o) => isObject(o) && o[key] === item[key]);
    if (item.$patch === "delete") {
      if (at >= 0) kept.splice(at, 1);
    } else if (at >= 0) {
      kept[at] = mergeObject(kept[at], item, schema, fields);
    } else added.push(withoutDirectives(item));
  }
  return [...added, ...kept];
}
