/**
 * A fresh cluster's objects, loaded into a new fake server: the system
 * namespaces and their `default` ServiceAccounts, the `default/kubernetes`
 * Service and its cluster IP, the bootstrap RBAC roles and bindings, the
 * priority classes, the flow-control objects, the local APIServices, as
 * `_builtins/cluster_data.ts` recorded them from kube-apiserver 1.37.2.
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { CLUSTER_OBJECTS } from "./cluster_data.ts";
import { type Entry, managedFields } from "../_apply/managed.ts";
import { type FieldSet, SEP } from "../_apply/fields.ts";
import { apiVersionOf, resourceKey, storeKey } from "../_store/objects.ts";
import { BUILT_IN_RESOURCES } from "../_store/registry.ts";
import { clone } from "../_verbs/patch.ts";
import type { ServerState } from "../_store/state.ts";

/** `fieldsV1` as a field set: the inverse of `encodeFields`. */
export function decodeFields(fields: Record<string, unknown>): FieldSet {
  const set: FieldSet = new Set();
  const walk = (node: Record<string, unknown>, prefix: string[]): void => {
    for (const [name, child] of Object.entries(node)) {
      if (name === ".") continue;
      const path = [...prefix, name];
      const record = child as Record<string, unknown>;
      const keys = Object.keys(record);
      // A leaf (`{}`) or a node marked `.` is itself owned.
      if (keys.length === 0 || "." in record) set.add(path.join(SEP));
      walk(record, path);
    }
  };
  walk(fields, []);
  return set;
}

/** One recorded object, read once per process. */
interface Prepared {
  rkey: string;
  key: string;
  object: KubeObject;
  entries: Omit<Entry, "time">[];
  /** `metadata.managedFields` but their times. */
  shown: Record<string, unknown>[];
}

let prepared: Prepared[] | undefined;

/** The recorded objects with their resources' keys and decoded owners. */
function prepare(): Prepared[] {
  if (prepared) return prepared;
  prepared = [];
  for (const recorded of CLUSTER_OBJECTS) {
    const object = clone(recorded) as unknown as KubeObject;
    const resource = BUILT_IN_RESOURCES.find((r) =>
      apiVersionOf(r) === object.apiVersion && r.kind === object.kind
    );
    if (!resource) continue;
    const meta = object.metadata;
    const recordedFields = (meta.managedFields ?? []) as {
      manager: string;
      operation: "Apply" | "Update";
      apiVersion: string;
      subresource?: string;
      fieldsV1?: Record<string, unknown>;
    }[];
    delete meta.managedFields;
    const entries = recordedFields.map((e) => ({
      manager: e.manager,
      operation: e.operation,
      apiVersion: e.apiVersion,
      subresource: e.subresource,
      set: decodeFields(e.fieldsV1 ?? {}),
    }));
    const shown = managedFields(entries.map((e) => ({ ...e, time: "" })))
      .map((e) => e as Record<string, unknown>);
    prepared.push({
      rkey: resourceKey(resource),
      key: storeKey(resource, meta.namespace, meta.name!),
      object,
      entries,
      shown,
    });
  }
  return prepared;
}

/**
 * Writes a fresh cluster's objects into `state`, each with a new uid, this
 * clock's creationTimestamp and the recorded owners of its fields.
 */
export function loadCluster(state: ServerState): void {
  const now = rfc3339();
  for (const { rkey, key, object, entries, shown } of prepare()) {
    const uid = crypto.randomUUID();
    const metadata = { ...object.metadata, uid, creationTimestamp: now };
    if (state.managedFields && shown.length > 0) {
      // The entries' order is the API server's, by time first: one time.
      metadata.managedFields = shown.map(({ subresource, ...e }) => ({
        ...e,
        time: now,
        ...(subresource === undefined ? {} : { subresource }),
      }));
    }
    state.noteCreated(uid);
    state.owners.set(uid, entries.map((e) => ({ ...e, time: now })));
    // The store keeps its own copy.
    state.store.write(rkey, key, { ...object, metadata });
  }
}
