// The writes a reconcile context offers: a child by server-side apply, the
// deletion of a child, and the primary's status in one call.
import { jsonEqual } from "../_internal/json.ts";
import type { Client } from "../apiclient/client.ts";
import {
  ApiError,
  isFieldManagerConflict,
  NotFoundError,
} from "../apiclient/errors.ts";
import {
  objectKey,
  type ObjectRef,
  objectRef,
  type Resource,
} from "../apiclient/resource.ts";
import type {
  KubeObject,
  ObjectReference,
  OwnerReference,
} from "../apiclient/types.ts";
import type { Condition } from "../conditions/mod.ts";
import type { Recorder } from "../events/recorder.ts";
import { transition } from "../events/transition.ts";
import type { EventNote } from "../events/types.ts";
import { settleStatus } from "../memo/requests.ts";
import type { Versions } from "../memo/versions.ts";
import { controllerRef } from "../apiclient/owners.ts";
import { ApplyConflictError } from "./errors.ts";
import { compose, stampsOf, type Status, stored } from "./_status.ts";
import type {
  ApplyChildOptions,
  Primary,
  StatusOptions,
  StatusPatch,
} from "./types.ts";

/** What the context's writes need of their controller and reconcile. */
export interface Writer {
  /** The controller's name: the field manager. */
  name: string;
  /** The primary collection. */
  primary: Primary;
  /**
   * The client (with the write guard and the metrics), bound to the memo:
   * its writes note their versions.
   */
  client: Client;
  /** The memo. */
  versions: Versions;
  /** The recorder for transition Events. */
  recorder: Recorder | undefined;
  /** The controller's force policy. */
  applyForce: boolean;
  /** Labels every applied child carries: a sharded member's shard. */
  childLabels?: Readonly<Record<string, string>> | undefined;
  /** The primary object's ref. */
  ref: ObjectRef;
  /** The primary object, or `undefined` when it is gone. */
  object: KubeObject | undefined;
  /** The reconcile's signal. */
  signal: AbortSignal;
}

/**
 * The plural apimachinery's `meta.UnsafeGuessKindToResource` guesses: the
 * kind lowercased; a final `s` takes `es`, a final `y` becomes `ies`,
 * anything else takes `s`.
 */
export function guessPlural(kind: string): string {
  const singular = kind.toLowerCase();
  if (singular.endsWith("s")) return `${singular}es`;
  if (singular.endsWith("y")) return `${singular.slice(0, -1)}ies`;
  return `${singular}s`;
}

/** Splits an apiVersion into its group (empty for core) and version. */
function groupVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf("/");
  return slash === -1 ? { group: "", version: apiVersion } : {
    group: apiVersion.slice(0, slash),
    version: apiVersion.slice(slash + 1),
  };
}

/** The primary object, or a TypeError naming what needed it. */
function present(writer: Writer, what: string): KubeObject {
  const object = writer.object;
  if (object === undefined || !object.metadata?.uid) {
    throw new TypeError(
      `Cannot ${what}: the primary ${objectKey(writer.ref)} is gone`,
    );
  }
  return object;
}

/** The child's collection, or a TypeError when it cannot be told. */
function childResource(
  child: KubeObject,
  given: Resource | undefined,
): Resource {
  const { apiVersion, kind } = child;
  if (typeof apiVersion !== "string" || apiVersion === "" || !kind) {
    throw new TypeError("A child to apply needs an apiVersion and a kind");
  }
  if (!child.metadata?.name) {
    throw new TypeError(`A ${kind} to apply needs a metadata.name`);
  }
  const { group, version } = groupVersion(apiVersion);
  if (given !== undefined) {
    if ((given.group ?? "") !== group || given.version !== version) {
      throw new TypeError(
        `The ${kind} ${child.metadata.name} is ${apiVersion}, not of the resource ${
          given.group ? `${given.group}/` : ""
        }${given.version} ${given.resource}`,
      );
    }
  }
  const namespace = child.metadata.namespace || undefined;
  const namespaced = given?.namespaced ?? namespace !== undefined;
  if (namespaced && namespace === undefined) {
    throw new TypeError(
      `The ${kind} ${child.metadata.name} names no namespace, and its resource is namespaced`,
    );
  }
  const resource: Resource = {
    version,
    resource: given?.resource ?? guessPlural(kind),
    namespaced,
  };
  if (group) resource.group = group;
  if (namespace !== undefined) resource.namespace = namespace;
  return resource;
}

/** Refuses an owner the garbage collector would ignore. */
function refuseScope(
  writer: Writer,
  child: KubeObject,
  namespaced: boolean,
): void {
  if (writer.primary.namespaced === false) return;
  const owner = `${writer.primary.kind} ${objectKey(writer.ref)}`;
  const name = `${child.kind} ${child.metadata.name}`;
  if (!namespaced) {
    throw new TypeError(
      `The cluster-scoped ${name} cannot be owned by the namespaced ${owner}`,
    );
  }
  if (child.metadata.namespace !== writer.ref.namespace) {
    throw new TypeError(
      `The ${name} in namespace ${child.metadata.namespace} cannot be owned by ${owner}: an owner must be in the child's namespace`,
    );
  }
}

/** The primary's apiVersion. */
function primaryApiVersion(primary: Primary): string {
  return primary.group
    ? `${primary.group}/${primary.version}`
    : primary.version;
}

/** The child's ownerReferences with the controller's in place of its own. */
function owned(
  writer: Writer,
  child: KubeObject,
  object: KubeObject,
): OwnerReference[] {
  const reference = controllerRef(object, writer.primary);
  const uid = reference.uid;
  const others = (child.metadata.ownerReferences ?? []).filter((reference) =>
    reference.uid !== uid
  );
  const controller = others.find((reference) => reference.controller === true);
  if (controller !== undefined) {
    throw new TypeError(
      `The ${child.kind} ${child.metadata.name} names another controller: ${controller.kind} ${controller.name}`,
    );
  }
  return [...others, reference];
}

/** The `field`s of a FieldManagerConflict's causes. */
function conflictFields(error: unknown): string[] {
  if (!(error instanceof ApiError)) return [];
  const causes = error.statusObject?.details?.causes ?? [];
  return causes.flatMap((cause) =>
    cause.reason === "FieldManagerConflict" && typeof cause.field === "string"
      ? [cause.field]
      : []
  );
}

/** {@linkcode ReconcileContext.apply}. */
export async function applyChild<C extends KubeObject>(
  writer: Writer,
  child: C,
  options: ApplyChildOptions = {},
): Promise<C> {
  const object = present(writer, `apply a ${child?.kind ?? "child"}`);
  const resource = childResource(child, options.resource);
  refuseScope(writer, child, resource.namespaced === true);
  const body: C = {
    ...child,
    metadata: {
      ...child.metadata,
      ...(writer.childLabels === undefined ? {} : {
        labels: { ...child.metadata.labels, ...writer.childLabels },
      }),
      ownerReferences: owned(writer, child, object),
    },
  };
  const ref = objectRef(resource, body);
  const force = options.force ?? writer.applyForce;
  const { signal } = writer;
  try {
    // writer.client notes the answer in the memo (Client.withMemo).
    return await writer.client.resource<C>(resource).apply(body, {
      fieldManager: writer.name,
      force,
      signal,
    });
  } catch (error) {
    if (!force && isFieldManagerConflict(error)) {
      throw new ApplyConflictError(writer.name, {
        ref,
        fields: conflictFields(error),
        cause: error,
      });
    }
    throw error;
  }
}

/** {@linkcode ReconcileContext.deleteChild}. */
export async function deleteChild(
  writer: Writer,
  ref: ObjectRef,
): Promise<boolean> {
  const { signal } = writer;
  // As apply refuses such a child, and the generated RBAC grants no
  // delete outside the primary's namespace.
  if (
    writer.primary.namespaced !== false &&
    (ref.namespace || undefined) !== writer.ref.namespace
  ) {
    throw new TypeError(
      `The ${ref.resource} ${
        objectKey(ref)
      } cannot be a child of the ${writer.primary.kind} ${
        objectKey(writer.ref)
      }: a namespaced owner's children are in its namespace`,
    );
  }
  try {
    await writer.client.resource(ref).delete(ref.name, {
      propagationPolicy: "Background",
      signal,
    });
    return true;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

/** {@linkcode ReconcileContext.status}. */
export async function writeStatus(
  writer: Writer,
  patch: StatusPatch,
  options: StatusOptions = {},
): Promise<boolean> {
  const object = present(writer, "write the status");
  const schema = writer.primary.schema;
  const stamps = stampsOf(schema, options.observedGeneration);
  const what = `${writer.primary.kind} ${objectKey(writer.ref)}`;
  let transitioned: Condition[] = [];
  const { landed, object: answer } = await settleStatus(
    writer.client,
    writer.ref,
    {
      held: structuredClone(object) as KubeObject & { status?: Status },
      versions: writer.versions,
      signal: writer.signal,
      apply: (copy) => {
        const held: Status = copy.status ?? {};
        const generation = copy.metadata.generation;
        const { next, changed } = compose(held, patch, generation, stamps);
        transitioned = changed;
        // Compared as the server will hold it, or a field it defaults
        // would differ on every pass.
        const kept = stored(schema, next, what);
        if (jsonEqual(held, kept)) return false;
        copy.status = kept;
        return true;
      },
    },
  );
  if (!landed) return false;
  const reference = referenceOf(writer.primary, answer);
  for (const condition of transitioned) {
    transition(writer.recorder, reference, { condition, bad: options.bad });
  }
  return true;
}

/** {@linkcode ReconcileContext.normal} and `warning`. */
export function postEvent(
  writer: Writer,
  type: "Normal" | "Warning",
  note: EventNote,
): void {
  const recorder = writer.recorder;
  if (recorder === undefined) return;
  const { name, namespace } = writer.ref;
  const object: KubeObject = writer.object ??
    { metadata: namespace ? { name, namespace } : { name } };
  const reference = referenceOf(writer.primary, object);
  if (type === "Normal") recorder.normal(reference, note);
  else recorder.warning(reference, note);
}

/** The primary's object reference, for its Events. */
function referenceOf(primary: Primary, object: KubeObject): ObjectReference {
  const reference: ObjectReference = {
    apiVersion: primaryApiVersion(primary),
    kind: primary.kind,
    name: object.metadata.name!,
  };
  if (object.metadata.namespace) {
    reference.namespace = object.metadata.namespace;
  }
  if (object.metadata.uid) reference.uid = object.metadata.uid;
  return reference;
}
