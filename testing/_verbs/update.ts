/**
 * Updating objects: PUT and PATCH of an object or its `/status`, with the
 * rules the API server applies to every write (resourceVersion conflicts,
 * the fields a write cannot change, `generation`, finalizers).
 *
 * @module
 */
import { secretData } from "../_store/secrets.ts";
import { BUILT_IN_RESOURCES } from "../_store/registry.ts";
import { validateMetadata } from "../_crds/validation.ts";
import type { KubeObject, ObjectMeta } from "../../apiclient/types.ts";
import { isNamespaces, terminating } from "../_admission/namespaces.ts";
import { clone, jsonPatch, mergePatch } from "./patch.ts";
import { jsonEqual } from "../../_internal/json.ts";
import {
  badRequest,
  conflict,
  failure,
  invalid,
  notFound,
  StatusError,
} from "./status.ts";
import { json, resourceKey, storeKey } from "../_store/objects.ts";
import {
  createObject,
  decodeObject,
  scopeOf,
  showOwners,
  validateObject,
  writerOf,
} from "./create.ts";
import { diffSets, Schema, SEP } from "../_apply/fields.ts";
import {
  applyConfig,
  type Entry,
  recordUpdate,
  sameOwners,
} from "../_apply/managed.ts";
import { flag } from "../_options.ts";
import type { Route } from "../_http/route.ts";
import {
  admit,
  appliedConfig,
  refuseStrategic,
  validateServed,
} from "../_admission/admit.ts";
import { isDefinitions, noteStorageVersion } from "../_crds/crd.ts";
import { applyDefaults } from "../_builtins/defaults.ts";
import { strategicMerge } from "./strategic.ts";
import { builtInErrors, builtInUpdateErrors } from "../_builtins/validation.ts";
import { stored, view } from "../_http/served.ts";
import { awaitConversions } from "../_crds/conversion_round.ts";
import type { ServerState } from "../_store/state.ts";
import type { RegisteredResource } from "../types.ts";

/** PUT of an object or its status. */
export function updateObject(
  state: ServerState,
  route: Route,
  name: string,
  body: unknown,
  query: URLSearchParams,
): Response {
  const { resource, namespace, subresource } = route;
  const object = admit(
    state,
    resource,
    applyDefaults(resource, decodeObject(body, resource)),
    query,
  );
  if (object.metadata.name !== undefined && object.metadata.name !== name) {
    throw badRequest(
      `the name of the object (${object.metadata.name}) does not match the name on the URL (${name})`,
    );
  }
  if (
    resource.namespaced && object.metadata.namespace !== undefined &&
    object.metadata.namespace !== "" &&
    object.metadata.namespace !== namespace
  ) {
    throw badRequest(
      "the namespace of the provided object does not match the namespace sent on the request",
    );
  }
  const key = storeKey(resource, namespace, name);
  const existing = view(resource, state.store.peek(resourceKey(resource), key));
  if (!existing) throw notFound(resource, name);
  const sent = object.metadata.resourceVersion;
  if (!sent && !BUILT_IN_RESOURCES.includes(resource)) {
    // Custom resources allow no unconditional update (built-in kinds do).
    throw invalid(resource.kind, name, [{
      field: "metadata.resourceVersion",
      reason: "FieldValueInvalid",
      message: "Invalid value: 0: must be specified for an update",
    }], resource.group);
  }
  if (sent && sent !== existing.metadata.resourceVersion) {
    throw conflict(resource, name);
  }
  return commit(state, route, name, existing, object, subresource, query, 200);
}

/** PATCH of an object or its status: merge, JSON, strategic (merged as merge) and apply patches. */
export function patchObject(
  state: ServerState,
  route: Route,
  name: string,
  text: string,
  request: Request,
  query: URLSearchParams,
): Response {
  const { resource, namespace } = route;
  const type = (request.headers.get("content-type") ?? "").split(";")[0]!
    .trim().toLowerCase();
  const kinds = [
    "application/merge-patch+json",
    "application/json-patch+json",
    "application/strategic-merge-patch+json",
    "application/apply-patch+yaml",
  ];
  refuseStrategic(resource, type);
  if (!kinds.includes(type)) {
    throw new StatusError(failure(
      415,
      "UnsupportedMediaType",
      "415: Unsupported Media Type",
      {},
    ));
  }
  let patch: unknown;
  try {
    patch = JSON.parse(text);
  } catch (error) {
    throw badRequest(
      type === "application/merge-patch+json"
        ? "invalid JSON patch"
        : `error decoding patch: ${(error as Error).message}`,
    );
  }
  const apply = type === "application/apply-patch+yaml";
  if (apply && !query.get("fieldManager")) {
    throw invalid("PatchOptions", "", [{
      field: "fieldManager",
      reason: "FieldValueRequired",
      message: "Required value: is required for apply patch",
    }], "meta.k8s.io");
  }
  const key = storeKey(resource, namespace, name);
  const existing = view(resource, state.store.peek(resourceKey(resource), key));
  if (!existing) {
    if (!apply || route.subresource) throw notFound(resource, name);
    const object = decodeObject(patch, resource);
    object.metadata.name ??= name;
    return createObject(state, resource, namespace, object, query, true);
  }
  let owners: Entry[] | undefined;
  let patched: unknown;
  if (apply) {
    const applied = appliedConfig(resource, decodeObject(patch, resource));
    const named = applied.metadata.name;
    if (named !== undefined && named !== name) {
      throw badRequest(
        `the name of the object (${named}) does not match the name on the URL (${name})`,
      );
    }
    const done = applyConfig(
      existing,
      applied,
      state.owners.get(existing.metadata.uid!) ?? [],
      writerOf(state, resource, route.subresource),
      {
        force: flag(query, "force") ?? false,
        schema: new Schema(resource),
        status: scopeOf(resource, route.subresource),
      },
    );
    patched = done.object;
    owners = done.entries;
  } else {
    patched = type === "application/json-patch+json"
      ? jsonPatch(existing, patch)
      : type === "application/strategic-merge-patch+json" &&
          BUILT_IN_RESOURCES.includes(resource)
      ? strategicMerge(existing, patch, new Schema(resource))
      : mergePatch(existing, patch);
  }
  const object = admit(
    state,
    resource,
    applyDefaults(resource, decodeObject(patched, resource)),
    query,
  );
  const sent = object.metadata.resourceVersion;
  if (sent && sent !== existing.metadata.resourceVersion) {
    throw conflict(resource, name);
  }
  object.metadata.name = name;
  if (resource.namespaced) object.metadata.namespace = namespace!;
  return commit(
    state,
    route,
    name,
    existing,
    object,
    route.subresource,
    query,
    200,
    owners,
  );
}

/** The rules every update and patch shares, then the write. */
function commit(
  state: ServerState,
  route: Route,
  name: string,
  existing: KubeObject,
  sent: KubeObject,
  subresource: string | undefined,
  query: URLSearchParams,
  code: number,
  applied?: Entry[],
): Response {
  return json(
    commitObject(state, route, { name, existing, sent, subresource, query }, {
      applied,
    }),
    code,
  );
}

/** An update's object: the one written and the one it replaces. */
export interface Written {
  /** The object's name. */
  name: string;
  /** The object before (as the request's version reads it). */
  existing: KubeObject;
  /** The object the request sends (for `/status`, its status counts alone). */
  sent: KubeObject;
  /** The subresource written through, such as `status` or `scale`. */
  subresource: string | undefined;
  /** The request's query (`dryRun`). */
  query: URLSearchParams;
}

/**
 * The rules every update and patch shares, then the write: answers the
 * object as the response shows it.
 */
export function commitObject(
  state: ServerState,
  route: Route,
  written: Written,
  options: { applied?: Entry[] | undefined } = {},
): KubeObject {
  const { name, existing, sent, subresource, query } = written;
  // The old object not converted yet: nothing is changed until it is.
  awaitConversions();
  const applied = options.applied;
  const { resource, namespace } = route;
  const rkey = resourceKey(resource);
  const key = storeKey(resource, namespace, name);
  type Full = KubeObject & { status?: unknown; [key: string]: unknown };
  const old = existing as Full;
  let next: Full;
  if (subresource === "status") {
    // A write to /status changes the status alone.
    next = clone(old);
    const status = (sent as Full).status;
    if (status === undefined) delete next.status;
    else next.status = clone(status);
    if (BUILT_IN_RESOURCES.includes(resource) && !isDefinitions(resource)) {
      keepStatusMetadata(resource, next.metadata, (sent as Full).metadata);
    }
  } else {
    next = clone(sent) as Full;
    const meta: ObjectMeta = next.metadata;
    meta.name = name;
    if (resource.namespaced) meta.namespace = namespace!;
    else delete meta.namespace;
    meta.uid = old.metadata.uid!;
    meta.creationTimestamp = old.metadata.creationTimestamp!;
    copyOptional(meta, old.metadata, "deletionTimestamp");
    copyOptional(meta, old.metadata, "deletionGracePeriodSeconds");
    if (old.metadata.deletionTimestamp) {
      const had = new Set(old.metadata.finalizers ?? []);
      const added = (meta.finalizers ?? []).filter((f) => !had.has(f));
      if (added.length > 0) {
        const message =
          `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${
            added.map((f) => JSON.stringify(f)).join(", ")
          }}`;
        throw invalid(resource.kind, name, [{
          field: "metadata.finalizers",
          reason: "FieldValueForbidden",
          message,
        }], resource.group);
      }
    }
    if (resource.statusSubresource) {
      // The object's own path ignores status when /status exists.
      if (old.status === undefined) delete next.status;
      else next.status = clone(old.status);
    }
    if (isDefinitions(resource)) noteStorageVersion(next);
    // Go writes a Namespace's spec even when empty (once finalized).
    if (isNamespaces(resource)) next.spec ??= {};
    if (resource.generation) {
      meta.generation = old.metadata.generation ?? 1;
      if (specChanged(old, next, resource.statusSubresource)) {
        meta.generation += 1;
      }
    } else delete meta.generation;
  }
  next.metadata.resourceVersion = old.metadata.resourceVersion!;
  validateMetadata(resource, next);
  if (BUILT_IN_RESOURCES.includes(resource)) {
    // The kind's rules and its immutable fields, in one answer.
    const errors = [
      ...builtInErrors(resource, next),
      ...builtInUpdateErrors(resource, next, old),
    ];
    if (errors.length > 0) {
      throw invalid(resource.kind, name, errors, resource.group);
    }
  }
  validateObject(resource, next);
  validateServed(resource, next, { old, warnings: state.warnings });
  if (state.managedFields) {
    // managedFields is the server's to write.
    copyManaged(next.metadata, old.metadata);
  }
  const uid = old.metadata.uid!;
  const before = state.owners.get(uid) ?? [];
  const schema = new Schema(resource);
  const sentObject = secretData(resource, state.admission?.unowned ?? next);
  // A Secret's stringData is owned as the data it becomes.
  const diff = diffSets(
    old,
    sentObject,
    schema,
    scopeOf(resource, subresource),
  );
  if (
    subresource === "status" && BUILT_IN_RESOURCES.includes(resource) &&
    !isDefinitions(resource)
  ) {
    // A built-in kind's status write keeps the metadata it sends, and its
    // writer owns that too.
    const all = diffSets(old, sentObject, schema);
    const meta = (p: string) => p.startsWith(`f:metadata${SEP}`);
    for (const p of all.changed) if (meta(p)) diff.changed.add(p);
    for (const p of all.removed) if (meta(p)) diff.removed.add(p);
  }
  let owners = applied ?? recordUpdate(
    before,
    writerOf(state, resource, subresource),
    diff,
  );
  if (sameOwners(owners, before)) owners = before;
  showOwners(state, next, owners);
  state.admission?.validate(resource, next, old);
  const dryRun = query.get("dryRun") === "All";
  if (!dryRun) state.owners.set(uid, owners);
  if (jsonEqual(next, old)) return old;
  if (dryRun) return next;
  if (
    next.metadata.deletionTimestamp &&
    (next.metadata.finalizers ?? []).length === 0 &&
    // A Namespace goes once the namespace controller finalized it.
    !(isNamespaces(resource) && terminating(next))
  ) {
    // The last finalizer went: the object goes. kube-apiserver answers the
    // object as written, at the version it had before (a client's memo
    // cannot tell that copy from a stale one).
    const answer = clone(next);
    state.store.write(rkey, key, stored(resource, secretData(resource, next)));
    state.store.delete(rkey, key);
    return answer;
  }
  return view(
    resource,
    state.store.write(rkey, key, stored(resource, secretData(resource, next))),
  );
}

function copyOptional(
  to: ObjectMeta,
  from: ObjectMeta,
  field: "deletionTimestamp" | "deletionGracePeriodSeconds",
): void {
  const record = from as Record<string, unknown>;
  const target = to as Record<string, unknown>;
  if (record[field] === undefined) delete target[field];
  else target[field] = record[field];
}

function copyManaged(to: ObjectMeta, from: ObjectMeta): void {
  if (from.managedFields === undefined) delete to.managedFields;
  else to.managedFields = clone(from.managedFields);
}

function specChanged(
  old: Record<string, unknown>,
  next: Record<string, unknown>,
  statusSubresource: boolean,
): boolean {
  const skip = new Set(["metadata", "apiVersion", "kind"]);
  if (statusSubresource) skip.add("status");
  const keys = new Set([...Object.keys(old), ...Object.keys(next)]);
  for (const key of keys) {
    if (skip.has(key)) continue;
    if (!jsonEqual(old[key], next[key])) return true;
  }
  return false;
}

/** The metadata a status write may change on a built-in kind. */
const STATUS_METADATA = [
  "labels",
  "annotations",
  "ownerReferences",
  "finalizers",
] as const;

/**
 * A built-in kind's status strategy resets its spec but keeps the
 * metadata the write sends (a custom resource's keeps none of it), except
 * that a Deployment's also resets its labels.
 */
function keepStatusMetadata(
  resource: RegisteredResource,
  next: ObjectMeta,
  sent: ObjectMeta | undefined,
): void {
  if (sent === undefined) return;
  const deployment = resource.group === "apps" &&
    resource.resource === "deployments";
  for (const key of STATUS_METADATA) {
    if (key === "labels" && deployment) continue;
    const value = sent[key];
    if (value === undefined) delete next[key];
    else (next as Record<string, unknown>)[key] = clone(value);
  }
}
