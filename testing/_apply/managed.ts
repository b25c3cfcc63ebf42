/**
 * Field ownership, as server-side apply keeps it in `metadata.managedFields`:
 * one entry per manager, operation (`Apply` or `Update`) and subresource,
 * each with the set of fields it owns; apply with its conflicts and `force`,
 * and the ownership an update takes.
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import type { StatusCause } from "../../apiclient/types.ts";
import { failure, StatusError } from "../_verbs/status.ts";
import {
  applySet,
  encodeFields,
  type FieldSet,
  mergeApplied,
  pathText,
  removeAt,
  type Schema,
  SEP,
  valueAt,
  within,
} from "./fields.ts";
import { jsonEqual } from "../../_internal/json.ts";

/** One manager's fields. */
export interface Entry {
  /** The field manager. */
  manager: string;
  /** How it wrote them. */
  operation: "Apply" | "Update";
  /** The apiVersion it wrote with. */
  apiVersion: string;
  /** When it last changed its fields; `""` for none (a write through `/scale`). */
  time: string;
  /** The subresource it wrote through, such as `status`. */
  subresource?: string | undefined;
  /** The fields it owns. */
  set: FieldSet;
}

/** Who writes: the manager, the version, the subresource. */
export interface Writer {
  /** The field manager. */
  manager: string;
  /** The apiVersion of the request. */
  apiVersion: string;
  /** The subresource, such as `status`. */
  subresource: string | undefined;
}

// An updater is one entry per apiVersion; an applier one across versions.
function owns(entry: Entry, writer: Writer, operation: string): boolean {
  return entry.manager === writer.manager &&
    entry.operation === operation &&
    entry.subresource === writer.subresource &&
    (operation === "Apply" || entry.apiVersion === writer.apiVersion);
}

/**
 * The entries as `metadata.managedFields` holds them, in the API server's
 * order: Apply before Update, then by time (to the second), manager,
 * apiVersion and subresource.
 */
export function managedFields(entries: readonly Entry[]): unknown[] {
  const key = (e: Entry): string[] => [
    e.operation,
    e.time.slice(0, 19),
    e.manager,
    e.apiVersion,
    e.subresource ?? "",
  ];
  const order = (a: Entry, b: Entry): number => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) {
      if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
    }
    return 0;
  };
  return [...entries].sort(order).map((e) => {
    const out: Record<string, unknown> = {
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      fieldsType: "FieldsV1",
      fieldsV1: encodeFields(e.set),
    };
    // An entry written through /scale has no time (below).
    if (e.time !== "") out.time = e.time;
    if (e.subresource) out.subresource = e.subresource;
    return out;
  });
}

/** Whether two entry lists name the same fields for the same managers. */
export function sameOwners(a: readonly Entry[], b: readonly Entry[]): boolean {
  return a.length === b.length && a.every((e, i) => {
    const f = b[i]!;
    return e.manager === f.manager && e.operation === f.operation &&
      e.subresource === f.subresource && e.apiVersion === f.apiVersion &&
      e.set.size === f.set.size && [...e.set].every((p) => f.set.has(p));
  });
}

/**
 * The ownership after an update (create, PUT, or a patch other than apply):
 * the writer's `Update` entry gains what changed, which every other entry
 * loses; what was removed leaves every entry.
 */
export function recordUpdate(
  entries: readonly Entry[],
  writer: Writer,
  diff: { changed: FieldSet; removed: FieldSet },
): Entry[] {
  const { changed, removed } = diff;
  if (changed.size === 0 && removed.size === 0) return [...entries];
  const gone = (p: string): boolean =>
    changed.has(p) || [...removed].some((r) => within(p, r));
  let mine: Entry | undefined;
  const out: Entry[] = [];
  // The API server converts the managedFields of a write through /scale
  // to the Scale's and back, which loses the entry's time.
  const time = writer.subresource === "scale" ? "" : rfc3339();
  for (const entry of entries) {
    const set = new Set([...entry.set].filter((p) => !gone(p)));
    if (owns(entry, writer, "Update")) {
      mine = { ...entry, set, time };
      for (const p of changed) set.add(p);
      out.push(mine);
    } else if (set.size > 0) out.push({ ...entry, set });
  }
  if (!mine && changed.size > 0) {
    out.push({
      manager: writer.manager,
      operation: "Update",
      apiVersion: writer.apiVersion,
      time,
      subresource: writer.subresource,
      set: new Set(changed),
    });
  }
  return out.filter((e) => e.set.size > 0);
}

/**
 * Applies a configuration to the live object as server-side apply does:
 * conflicts with the fields other managers own at other values (a 409,
 * unless `force` takes them), merged by the schema's list types, and the
 * fields the writer applied before and no longer applies removed when no
 * other manager owns them.
 *
 * @returns The merged object and the new ownership.
 * @throws {StatusError} 409 with the conflicts.
 */
export function applyConfig(
  live: KubeObject | undefined,
  applied: KubeObject,
  entries: readonly Entry[],
  writer: Writer,
  options: { force: boolean; schema: Schema; status: boolean | undefined },
): { object: KubeObject; entries: Entry[] } {
  const { schema, status } = options;
  const set = applySet(applied, schema, status);
  const mine = entries.find((e) => owns(e, writer, "Apply"));
  const conflicts: [Entry, string][] = [];
  for (const entry of entries) {
    if (entry === mine) continue;
    for (const p of set) {
      if (!entry.set.has(p)) continue;
      const path = p.split(SEP);
      const last = path[path.length - 1]!;
      if (last.startsWith("k:") || last.startsWith("v:")) continue;
      if (
        !jsonEqual(valueAt(applied, path, schema), valueAt(live, path, schema))
      ) {
        conflicts.push([entry, p]);
      }
    }
  }
  if (conflicts.length > 0 && !options.force) throw conflictError(conflicts);
  const taken = new Set(conflicts.map(([, p]) => p));
  const others = entries.filter((e) => e !== mine).map((e) => ({
    ...e,
    set: new Set([...e.set].filter((p) => !taken.has(p))),
  }));
  const object = mergeApplied(live ?? {}, applied, schema) as KubeObject;
  for (const p of mine?.set ?? []) {
    if (set.has(p) || [...set].some((q) => within(q, p))) continue;
    const held = others.some((e) => [...e.set].some((q) => within(q, p)));
    if (!held) removeAt(object, p.split(SEP), schema);
  }
  const next: Entry = {
    manager: writer.manager,
    operation: "Apply",
    apiVersion: writer.apiVersion,
    time: rfc3339(),
    subresource: writer.subresource,
    set,
  };
  const out = entries.map((e) =>
    e === mine ? next : others.find((o) =>
      o.manager === e.manager &&
      o.operation === e.operation && o.subresource === e.subresource
    )!
  );
  if (!mine) out.push(next);
  return { object, entries: out.filter((e) => e.set.size > 0) };
}

/** How a conflict names a manager: `"name"`, or `"name" using v1` for an update. */
function printManager(entry: Entry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource) {
    text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  }
  return entry.operation === "Update"
    ? `${text} using ${entry.apiVersion}`
    : text;
}

/** The API server's 409 for apply conflicts. */
function conflictError(conflicts: [Entry, string][]): StatusError {
  const causes: StatusCause[] = conflicts.map(([entry, p]) => ({
    reason: "FieldManagerConflict",
    message: `conflict with ${printManager(entry)}`,
    field: pathText(p),
  }));
  let message: string;
  if (conflicts.length === 1) {
    const [entry, p] = conflicts[0]!;
    message = `Apply failed with 1 conflict: conflict with ${
      printManager(entry)
    }: ${pathText(p)}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const [entry, p] of conflicts) {
      const name = printManager(entry);
      byManager.set(name, [...(byManager.get(name) ?? []), pathText(p)]);
    }
    const lines: string[] = [];
    for (const name of [...byManager.keys()].sort()) {
      lines.push(`conflicts with ${name}:`);
      for (const path of byManager.get(name)!) lines.push(`- ${path}`);
    }
    message = `Apply failed with ${conflicts.length} conflicts: ${
      lines.join("\n")
    }`;
  }
  return new StatusError(failure(409, "Conflict", message, { causes }));
}
