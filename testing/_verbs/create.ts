/**
 * Creating objects: decoding a request body, `generateName`, validation, the
 * fields the API server sets on create, and `metadata.managedFields`.
 *
 * @module
 */
import { rfc3339 } from "../../_internal/time.ts";
import { secretData } from "../_store/secrets.ts";
import type { KubeObject } from "../../apiclient/types.ts";
import { clone } from "./patch.ts";
import { BUILT_IN_RESOURCES } from "../_store/registry.ts";
import { alreadyExists, badRequest, invalid } from "./status.ts";
import { eventErrors } from "../_store/events.ts";
import { builtInSchema } from "../_builtins/schemas.ts";
import type { Schema as OpenApiSchema } from "../../_internal/schema/types.ts";
import { admitCreate, isNamespaces } from "../_admission/namespaces.ts";
import {
  admitNewPod,
  createDefaultAccount,
} from "../_admission/pod_admission.ts";
import {
  apiVersionOf,
  isObject,
  json,
  resourceKey,
  storeKey,
} from "../_store/objects.ts";
import type { ServerState } from "../_store/state.ts";
import { diffSets, Schema } from "../_apply/fields.ts";
import { validateMetadata } from "../_crds/validation.ts";
import {
  applyConfig,
  type Entry,
  managedFields,
  recordUpdate,
  type Writer,
} from "../_apply/managed.ts";
import { admit, appliedConfig, validateServed } from "../_admission/admit.ts";
import { initialStatus, isDefinitions } from "../_crds/crd.ts";
import { stored, view } from "../_http/served.ts";
import { builtInErrors } from "../_builtins/validation.ts";
import {
  applyDefaults,
  initialBuiltInStatus,
  prepareForCreate,
} from "../_builtins/defaults.ts";
import type { EventObject, RegisteredResource } from "../types.ts";

/** POST of an object (or an apply patch of an absent one). */
export function createObject(
  state: ServerState,
  resource: RegisteredResource,
  namespace: string | undefined,
  body: unknown,
  query: URLSearchParams,
  apply = false,
): Response {
  const decoded = decodeObject(body, resource);
  if (resource.namespaced && state.namespaceLifecycle) {
    admitCreate(
      state,
      resource,
      namespace!,
      decoded.metadata?.name ?? decoded.metadata?.generateName ?? "",
      !state.freshCluster,
    );
  }
  // Defaults come with decoding, before admission; an apply's
  // configuration stays as sent.
  const object = admit(
    state,
    resource,
    applyDefaults(resource, clone(decoded)),
    query,
  );
  const meta = object.metadata;
  if (resource.namespaced) {
    if (
      meta.namespace !== undefined && meta.namespace !== "" &&
      meta.namespace !== namespace
    ) {
      throw badRequest(
        "the namespace of the provided object does not match the namespace sent on the request",
      );
    }
    meta.namespace = namespace!;
  } else delete meta.namespace;
  const rkey = resourceKey(resource);
  const pins = state.admission?.pins;
  if (!meta.name && pins !== undefined) meta.name = pins.name;
  if (!meta.name) {
    if (!meta.generateName) {
      throw invalid(resource.kind, "", [{
        field: "metadata.name",
        reason: "FieldValueRequired",
        message: "Required value: name or generateName is required",
      }], resource.group);
    }
    do {
      meta.name = meta.generateName + state.suffix();
    } while (
      state.store.peek(rkey, storeKey(resource, namespace, meta.name))
    );
  }
  const key = storeKey(resource, namespace, meta.name);
  validateMetadata(resource, object);
  validateObject(resource, object);
  delete meta.resourceVersion;
  delete meta.deletionTimestamp;
  delete (meta as Record<string, unknown>).deletionGracePeriodSeconds;
  meta.uid = pins?.uid ?? crypto.randomUUID();
  meta.creationTimestamp = pins?.creationTimestamp ?? rfc3339();
  if (resource.generation) meta.generation = 1;
  else delete meta.generation;
  const record = object as KubeObject & { status?: unknown };
  if (resource.statusSubresource) {
    // The API server drops the status a create sends when the resource
    // has a status subresource; a Namespace starts Active.
    delete record.status;
    const zero = initialBuiltInStatus(resource, object);
    if (zero !== undefined) record.status = zero;
    if (resource.resource === "namespaces" && resource.group === "") {
      record.status = { phase: "Active" };
      // The API server labels each Namespace with its name.
      meta.labels = {
        ...meta.labels,
        "kubernetes.io/metadata.name": meta.name,
      };
    }
    if (isDefinitions(resource)) initialStatus(object);
  }
  validateServed(resource, object);
  const writer = writerOf(state, resource, undefined);
  const schema = new Schema(resource);
  const scope = scopeOf(resource, undefined);
  const entries = apply
    ? applyConfig(undefined, applied(resource, decoded, object), [], writer, {
      force: true,
      schema,
      status: scope,
    }).entries
    : recordUpdate(
      [],
      writer,
      // A Secret's stringData is owned as the data it becomes.
      diffSets(
        {},
        secretData(resource, state.admission?.unowned ?? object),
        schema,
        scope,
      ),
    );
  prepareForCreate(resource, object, () => allocateClusterIP(state));
  if (resource.group === "" && resource.resource === "pods") {
    admitNewPod(state, namespace!, object);
  }
  if (isNamespaces(resource)) {
    // The namespace controller's finalizer, set after ownership is
    // recorded: no manager owns it.
    (object as { spec?: unknown }).spec = { finalizers: ["kubernetes"] };
  }
  showOwners(state, object, entries);
  // Validating admission comes before storage, which finds a name taken.
  state.admission?.validate(resource, object, undefined);
  if (state.store.peek(rkey, key)) throw alreadyExists(resource, meta.name);
  if (query.get("dryRun") === "All") return json(object, 201);
  // In the storage version first: a conversion webhook may refuse it.
  const storing = stored(resource, secretData(resource, object));
  state.noteCreated(meta.uid);
  state.owners.set(meta.uid, entries);
  const written = view(resource, state.store.write(rkey, key, storing));
  // The ServiceAccount controller's answer to a new Namespace.
  if (isNamespaces(resource)) createDefaultAccount(state, meta.name);
  return json(written, 201);
}

/**
 * What an apply that creates the object applied: the configuration as
 * sent (pruned, not defaulted) with the fields the create set itself.
 */
function applied(
  resource: RegisteredResource,
  config: KubeObject,
  object: KubeObject,
): KubeObject {
  if (config === object) return object;
  const out = appliedConfig(resource, config);
  out.metadata = object.metadata;
  const status = (object as { status?: unknown }).status;
  if (status === undefined) delete (out as { status?: unknown }).status;
  return out;
}

/** Who writes `resource` in this request, for `managedFields`. */
export function writerOf(
  state: ServerState,
  resource: RegisteredResource,
  subresource: string | undefined,
): Writer {
  return {
    manager: state.manager,
    apiVersion: apiVersionOf(resource),
    subresource,
  };
}

/**
 * The part of an object a write through `subresource` owns fields of:
 * `true` status alone, `false` all but status (a resource with a status
 * subresource), `undefined` all.
 */
export function scopeOf(
  resource: RegisteredResource,
  subresource: string | undefined,
): boolean | undefined {
  if (subresource === "status") return true;
  return resource.statusSubresource ? false : undefined;
}

/** Shows the owners in `metadata.managedFields` when the server shows them. */
export function showOwners(
  state: ServerState,
  object: KubeObject,
  entries: readonly Entry[],
): void {
  if (!state.managedFields) return;
  if (entries.length > 0) {
    object.metadata.managedFields = managedFields(entries);
  } else delete object.metadata.managedFields;
}

/** A request body as an object of the resource, `apiVersion` and `kind` first. */
export function decodeObject(
  body: unknown,
  resource: RegisteredResource,
): KubeObject {
  if (!isObject(body)) {
    throw badRequest(
      typeof body === "string"
        ? `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml`
        : "Object 'Kind' is missing in the request body",
    );
  }
  const sentKind = body.kind;
  if (
    typeof sentKind === "string" && sentKind !== "" &&
    sentKind !== resource.kind && BUILT_IN_RESOURCES.includes(resource)
  ) {
    const v = resource.version;
    const internal = resource.group.split(".")[0] || "core";
    throw badRequest(
      `${sentKind} in version "${v}" cannot be handled as a ${resource.kind}: converting (${v}.${sentKind}) to (${internal}.${resource.kind}): unknown conversion`,
    );
  }
  // apiVersion and kind first, as the API server writes them.
  const object = {
    ...clone(body),
    apiVersion: apiVersionOf(resource),
    kind: resource.kind,
  } as unknown as KubeObject;
  const ordered = {
    apiVersion: object.apiVersion,
    kind: object.kind,
    ...object,
  } as KubeObject;
  if (!isObject(ordered.metadata)) ordered.metadata = {};
  // A built-in kind is decoded into Go structs whose optional fields are
  // omitempty: an empty map or list, or a null, is not kept (a custom
  // resource keeps them, and so does a CustomResourceDefinition's spec,
  // whose schemas and subresources keep empty objects).
  if (!BUILT_IN_RESOURCES.includes(resource)) return ordered;
  if (isDefinitions(resource)) {
    ordered.metadata = omitEmpty(
      ordered.metadata as Record<string, unknown>,
    ) as KubeObject["metadata"];
    return ordered;
  }
  const typed = omitEmpty(
    ordered as unknown as Record<string, unknown>,
    builtInSchema(resource),
  ) as unknown as KubeObject;
  typed.metadata ??= {};
  return typed;
}

/**
 * Drops nulls and empty maps and lists, deeply, as Go's omitempty does; a
 * struct the schema declares (an `emptyDir: {}`) stays, as Go writes a
 * pointer to an empty struct.
 */
function omitEmpty(
  value: Record<string, unknown>,
  schema?: OpenApiSchema | undefined,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const inner = schema?.properties?.[key] ??
      (isObject(schema?.additionalProperties)
        ? schema.additionalProperties
        : undefined);
    const kept = omitted(item, inner);
    if (kept !== undefined) out[key] = kept;
  }
  return out;
}

function omitted(value: unknown, schema?: OpenApiSchema | undefined): unknown {
  if (value === null) return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return value.map((item) =>
      isObject(item) ? omitEmpty(item, schema?.items) : item
    );
  }
  if (isObject(value)) {
    const inner = omitEmpty(value, schema);
    const struct = schema?.properties !== undefined &&
      Object.keys(schema.properties).length > 0;
    return Object.keys(inner).length === 0 && !struct ? undefined : inner;
  }
  return value;
}

/**
 * The validation the fake does of built-in kinds: core/v1 Events and the
 * common kinds' rules (`_builtins/validation.ts`).
 */
export function validateObject(
  resource: RegisteredResource,
  object: KubeObject,
): void {
  if (BUILT_IN_RESOURCES.includes(resource)) {
    const errors = builtInErrors(resource, object);
    if (errors.length > 0) {
      throw invalid(
        resource.kind,
        object.metadata.name ?? "",
        errors,
        resource.group,
      );
    }
  }
  if (resource.group !== "" || resource.resource !== "events") return;
  const errors = eventErrors(object as EventObject);
  if (errors.length > 0) {
    throw invalid("Event", object.metadata.name ?? "", errors);
  }
}

const ALLOCATED = new WeakMap<ServerState, number>();

/**
 * The next free cluster IP of the recorded control plane's range,
 * 10.96.0.0/16, handed out in order from 10.96.0.1 (the API server picks
 * at random), past those a Service holds (a fresh cluster's `kubernetes`
 * Service holds 10.96.0.1).
 */
function allocateClusterIP(state: ServerState): string {
  const services = BUILT_IN_RESOURCES.find((r) =>
    r.group === "" && r.resource === "services"
  )!;
  const held = new Set(
    state.store.all(resourceKey(services)).flatMap(([, service]) =>
      (service as { spec?: { clusterIPs?: string[] } }).spec?.clusterIPs ?? []
    ),
  );
  for (;;) {
    const n = (ALLOCATED.get(state) ?? 0) + 1;
    ALLOCATED.set(state, n);
    const ip = `10.96.${Math.floor(n / 256) % 256}.${n % 256}`;
    if (!held.has(ip)) return ip;
  }
}
