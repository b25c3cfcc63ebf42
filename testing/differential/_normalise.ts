/**
 * Turns a transcript into what two servers must agree on: values that each
 * server picks for itself (uids, times, resourceVersions, generated names,
 * the run's namespace) become relations, and the rest stays exact.
 *
 * - An object's resourceVersion becomes `<rv:N>`, N its rank among the
 *   objects' resourceVersions of the transcript: equal stays equal, newer
 *   stays newer, whatever numbers the server used. A list's (or a
 *   bookmark's, or a request's) version becomes `<rv:N+>`: newer than the
 *   N-th object version and older than the next. A real server writes
 *   other objects meanwhile (Leases of its own), so its list versions run
 *   ahead of the transcript's objects; the relation still holds.
 * - A uid becomes `<uid:N>` in order of first appearance.
 * - A time stamp becomes `<time>`; a generated name keeps its prefix
 *   (`greet-<gen>`); the run's namespace becomes `<ns>`.
 * - A `continue` token becomes `<continue>`; a loopback port (the URL of a
 *   scenario's webhook) becomes `127.0.0.1:<port>`.
 * - The causes of an `Invalid` Status are sorted by field, and its message's
 *   list with them: kube-apiserver validates a custom resource's properties
 *   in Go map order, so the order changes from one run to the next.
 * - `managedFields` entries are sorted by operation, manager, apiVersion and
 *   subresource: kube-apiserver orders them by operation, then by the
 *   second of their time, then by those, so two entries written within a
 *   run swap places when a second boundary falls between them.
 *
 * @module
 */

import type { Step } from "./_target.ts";

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const UIDS = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;
const RV_KEYS = new Set(["resourceVersion"]);

const TIME_KEYS = new Set([
  "creationTimestamp",
  "deletionTimestamp",
  "time",
  "lastTransitionTime",
  "renewTime",
  "acquireTime",
  "eventTime",
  "firstTimestamp",
  "lastTimestamp",
  "lastObservedTime",
]);

/** Options of {@linkcode normalise}. */
export interface NormaliseOptions {
  /** The run's namespace, replaced by `<ns>`. */
  namespace: string;
  /** The prefixes of `generateName` the scenario used. */
  generated?: readonly string[];
}

/**
 * Normalises a transcript.
 *
 * @param steps The transcript.
 * @param options The run's namespace and generated-name prefixes.
 * @returns A new transcript in normal form.
 */
export function normalise(
  steps: readonly Step[],
  options: NormaliseOptions,
): Step[] {
  const versions = new Set<string>();
  const lists = new Set<string>();
  collect(steps, versions, lists);
  const ranks = new Map<string, string>();
  const sorted = [...versions].sort(compareVersions);
  sorted.forEach((v, i) => ranks.set(v, `<rv:${i + 1}>`));
  // A list's version: how many object versions it is at or past. Whether a
  // real server wrote something else in between (its own Leases) is noise.
  const listRank = (v: string): string =>
    `<rv:${sorted.filter((o) => compareVersions(o, v) <= 0).length}+>`;
  const uids = new Map<string, number>();
  const ns = options.namespace;
  const generated = options.generated ?? [];
  const uid = (value: string): string => {
    if (!uids.has(value)) uids.set(value, uids.size + 1);
    return `<uid:${uids.get(value)}>`;
  };
  const text = (value: string, message = true): string => {
    let out = value.split(ns).join("<ns>").replace(UIDS, uid)
      // A loopback port a scenario listens on (a webhook's URL).
      .replace(/\b127\.0\.0\.1:\d+/g, "127.0.0.1:<port>");
    for (const prefix of generated) {
      out = out.replace(
        new RegExp(`${escape(prefix)}[a-z0-9]{5}\\b`, "g"),
        `${prefix}<gen>`,
      );
    }
    if (message && /resource ?version/i.test(out)) {
      // A version quoted in a message (a watch's "too old resource
      // version"), but not a storage error's code ("Code: 7").
      for (const [rv, rank] of ranks) {
        out = out.replace(new RegExp(`(?<!Code: )\\b${rv}\\b`, "g"), rank);
      }
    }
    return out;
  };
  const walk = (
    value: unknown,
    key: string | undefined,
    listLevel = false,
  ): unknown => {
    if (typeof value === "string") {
      if (key !== undefined && RV_KEYS.has(key) && /^\d+$/.test(value)) {
        return listLevel
          ? listRank(value)
          : ranks.get(value) ?? listRank(value);
      }
      if (key === "continue" && value !== "") return "<continue>";
      if (UID.test(value)) return uid(value);
      if ((key !== undefined && TIME_KEYS.has(key)) || TIME.test(value)) {
        return "<time>";
      }
      return text(value);
    }
    if (Array.isArray(value)) return value.map((v) => walk(v, undefined));
    if (value !== null && typeof value === "object") {
      const record = value as Record<string, unknown>;
      const kind = typeof record.kind === "string" ? record.kind : "";
      const list = listLevel || kind.endsWith("List") || kind === "Table";
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(record)) {
        if (k === "metadata") out[k] = walk(v, k, list);
        else if (key === "metadata") out[k] = walk(v, k, listLevel);
        else {
          const bookmark = k === "object" && record.type === "BOOKMARK";
          out[k] = walk(v, k, bookmark);
        }
      }
      return apiServerPort(out);
    }
    return value;
  };
  return canonical(steps.map((step) => ({
    ...step,
    request: text(step.request, false).replace(
      /continue=[^&]+/g,
      "continue=<continue>",
    ).replace(
      /resourceVersion=(\d+)/g,
      (_, rv: string) => `resourceVersion=${listRank(rv)}`,
    ),
    body: walk(step.body, undefined),
    ...(step.warnings ? { warnings: step.warnings.map((w) => text(w)) } : {}),
  })));
}

/**
 * The `default/kubernetes` Service points at the API server's secure port,
 * a free port in each run of the recorded plane (6443 on a kubeadm cluster
 * and on the fake): it reads `<apiserver-port>`.
 */
function apiServerPort(
  object: Record<string, unknown>,
): Record<string, unknown> {
  const meta = object.metadata as Record<string, unknown> | undefined;
  const spec = object.spec as Record<string, unknown> | undefined;
  if (
    meta?.name !== "kubernetes" || meta.namespace !== "default" ||
    !Array.isArray(spec?.ports)
  ) return object;
  const ports = (spec.ports as Record<string, unknown>[]).map((port) =>
    typeof port.targetPort === "number"
      ? { ...port, targetPort: "<apiserver-port>" }
      : port
  );
  return { ...object, spec: { ...spec, ports } };
}

/**
 * Gathers the objects' versions into `objects` and the versions of lists,
 * bookmarks and requests into `lists`.
 */
function collect(
  steps: readonly Step[],
  objects: Set<string>,
  lists: Set<string>,
): void {
  const walk = (value: unknown, listLevel: boolean): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, false);
      return;
    }
    if (value === null || typeof value !== "object") return;
    const record = value as Record<string, unknown>;
    const kind = typeof record.kind === "string" ? record.kind : "";
    const meta = record.metadata as Record<string, unknown> | undefined;
    const rv = meta?.resourceVersion;
    if (typeof rv === "string" && /^\d+$/.test(rv)) {
      const list = listLevel || kind.endsWith("List") || kind === "Table";
      (list ? lists : objects).add(rv);
    }
    for (const [k, v] of Object.entries(record)) {
      if (k === "metadata") continue;
      // A bookmark's object stands for the collection's version.
      const bookmark = k === "object" && record.type === "BOOKMARK";
      walk(v, bookmark);
    }
  };
  for (const step of steps) {
    walk(step.body, false);
    for (const match of step.request.matchAll(/resourceVersion=(\d+)/g)) {
      lists.add(match[1]!);
    }
  }
}

function compareVersions(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The orders that do not depend on what two servers agree on: the causes of
 * an `Invalid` Status ({@linkcode orderCauses}) and `managedFields` entries
 * ({@linkcode orderManagedFields}). Idempotent, so goldens recorded before
 * a rule read the same.
 *
 * @param steps A normalised transcript.
 * @returns The transcript in canonical order.
 */
export function canonical(steps: Step[]): Step[] {
  return orderCauses(steps).map((step) => ({
    ...step,
    body: tableAges(orderManagedFields(step.body)),
  }));
}

/** The Table columns whose cells say how long ago something was. */
const AGES = new Set(["Age", "Duration"]);

/**
 * A Table's age cells as `<age>`: they count the seconds since the object
 * was made, so a second boundary between the create and the read (a loaded
 * machine) changes them on either server.
 */
function tableAges(body: unknown): unknown {
  const table = body as {
    kind?: unknown;
    columnDefinitions?: { name?: unknown }[];
    rows?: { cells?: unknown[] }[];
  } | null;
  if (
    table === null || typeof table !== "object" || table.kind !== "Table" ||
    !Array.isArray(table.columnDefinitions) || !Array.isArray(table.rows)
  ) return body;
  const ages = table.columnDefinitions.flatMap((column, i) =>
    AGES.has(String(column?.name)) ? [i] : []
  );
  if (ages.length === 0) return body;
  return {
    ...table,
    rows: table.rows.map((row) =>
      Array.isArray(row?.cells)
        ? {
          ...row,
          cells: row.cells.map((cell, i) => ages.includes(i) ? "<age>" : cell),
        }
        : row
    ),
  };
}

interface Entry {
  operation?: string;
  manager?: string;
  apiVersion?: string;
  subresource?: string;
}

/**
 * Sorts every `metadata.managedFields` in a value by operation, manager,
 * apiVersion and subresource (stable), leaving out the time the API server
 * also sorts by.
 *
 * @param value A step's body.
 * @returns The value with its entries in that order.
 */
export function orderManagedFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(orderManagedFields);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    out[k] = k === "managedFields" && Array.isArray(v)
      ? [...v].sort((a: Entry, b: Entry) => {
        for (
          const f of [
            "operation",
            "manager",
            "apiVersion",
            "subresource",
          ] as const
        ) {
          const [x, y] = [a?.[f] ?? "", b?.[f] ?? ""];
          if (x !== y) return x < y ? -1 : 1;
        }
        return 0;
      })
      : orderManagedFields(v);
  }
  return out;
}

interface Cause {
  field?: string;
  message?: string;
  reason?: string;
}

/**
 * Sorts the causes of each `Invalid` Status by field (then message), and
 * the bracketed list of its message in the same order when that list is
 * the causes'. Idempotent: goldens recorded before the rule read the same.
 *
 * @param steps A normalised transcript.
 * @returns The transcript with its causes in order.
 */
export function orderCauses(steps: Step[]): Step[] {
  return steps.map((step) => {
    const body = step.body as {
      kind?: string;
      message?: string;
      details?: { causes?: Cause[] };
    } | null;
    const causes = body?.details?.causes;
    if (
      body?.kind !== "Status" || !Array.isArray(causes) || causes.length < 2
    ) {
      return step;
    }
    const line = (c: Cause): string => `${c.field}: ${c.message}`;
    const sorted = [...causes].sort((a, b) =>
      line(a) < line(b) ? -1 : line(a) > line(b) ? 1 : 0
    );
    let message = body.message;
    const listed = `[${causes.map(line).join(", ")}]`;
    if (message?.endsWith(listed)) {
      message = message.slice(0, -listed.length) +
        `[${sorted.map(line).join(", ")}]`;
    }
    return {
      ...step,
      body: { ...body, message, details: { ...body.details, causes: sorted } },
    };
  });
}
