// The status `context.status()` writes, as the API server will hold it: the
// fields the primary's schema has (observedGeneration only where it has
// one), refused before the write when the schema would prune any, and
// defaulted, so "nothing changed" compares like with like. Without this a
// pruned field made every pass write again (issue 41).
import { type Condition, set } from "../conditions/mod.ts";
import { applyDefaults, prune } from "../_internal/schema/prune.ts";
import type { Schema } from "../resource/schema.ts";
import type { StatusPatch } from "./types.ts";

/** A status as the context composes it. */
export type Status = Record<string, unknown> & { conditions?: Condition[] };

/** Where the context sets `observedGeneration`. */
export interface Stamps {
  /** `status.observedGeneration`. */
  status: boolean;
  /** `observedGeneration` of each condition that states none. */
  conditions: boolean;
}

/**
 * Where the status takes `observedGeneration`: where the primary's schema
 * names it; without a schema, the conditions (a `metav1.Condition` has the
 * field) and the status only when `option` says so. `option` decides the
 * status's field in both cases.
 */
export function stampsOf(
  schema: Schema | undefined,
  option: boolean | undefined,
): Stamps {
  if (schema === undefined) {
    return { status: option ?? false, conditions: true };
  }
  const status = schema.properties?.status;
  const condition = status?.properties?.conditions?.items;
  return {
    status: option ?? status?.properties?.observedGeneration !== undefined,
    conditions: condition?.properties?.observedGeneration !== undefined,
  };
}

/** The status `patch` makes of `held`, and the conditions that transitioned. */
export function compose(
  held: Status,
  patch: StatusPatch,
  generation: number | undefined,
  stamps: Stamps,
): { next: Status; changed: Condition[] } {
  const next: Status = structuredClone(held);
  for (const [field, value] of Object.entries(patch)) {
    if (field === "conditions" || value === undefined) continue;
    if (value === null) delete next[field];
    else next[field] = structuredClone(value);
  }
  const changed: Condition[] = [];
  const stamp = generation !== undefined;
  if (patch.conditions !== undefined) {
    const list: Condition[] = Array.isArray(held.conditions)
      ? structuredClone(held.conditions)
      : [];
    for (const condition of patch.conditions) {
      const stamped: Condition = { ...condition };
      if (
        stamp && stamps.conditions && stamped.observedGeneration === undefined
      ) {
        stamped.observedGeneration = generation;
      }
      if (set(list, stamped)) {
        changed.push(list.find((held) => held.type === condition.type)!);
      }
    }
    next.conditions = list;
  }
  if (stamp && stamps.status) next.observedGeneration = generation;
  return { next, changed };
}

/**
 * The status as the API server will store it: defaulted by the schema.
 * Without a schema, the status as it is.
 *
 * @throws {TypeError} When the schema would prune a field, naming each.
 */
export function stored(
  schema: Schema | undefined,
  status: Status,
  what: string,
): Status {
  if (schema === undefined) return status;
  const object: { status?: Status } = { status: structuredClone(status) };
  const pruned: string[] = [];
  prune(object, schema, true, "", pruned);
  if (pruned.length > 0) {
    throw new TypeError(
      `The status of ${what} has fields its schema does not, which the API server would drop: ${
        pruned.join(", ")
      }`,
    );
  }
  applyDefaults(object, schema);
  return object.status ?? {};
}
