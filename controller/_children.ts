// The reads of a reconcile context: one object through the watch of its
// collection, and the primary's children through the owner index of an
// `owns` watch. Both are memo-aware.
import type { Client } from "../apiclient/client.ts";
import { NotFoundError } from "../apiclient/errors.ts";
import {
  objectKey,
  type ObjectRef,
  objectRef,
  type Resource,
} from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import { collectionName } from "../_internal/names.ts";
import { cachedGet, cachedList } from "../informer/cache.ts";
import { finalState } from "../informer/tombstone.ts";
import type { Handler, Source } from "../informer/types.ts";
import type { Versions } from "../memo/versions.ts";
import { controllerOf } from "../apiclient/owners.ts";
import { CONTROLLER_UID_INDEX } from "./changes.ts";
import type { Registration } from "../informer/shared.ts";
import type { Primary } from "./types.ts";

/** What the reads need of a controller's watch. */
type Watched<T extends KubeObject = KubeObject> = Pick<
  Registration<T>,
  "source" | "metadataOnly" | "view"
>;

/** What the reads need of their controller and reconcile. */
export interface Reader {
  /** The controller's name, for errors. */
  name: string;
  /** The primary collection. */
  primary: Primary;
  /** Every watch of the controller, the primary's first. */
  watches: readonly Watched<KubeObject>[];
  /** The `owns` watches. */
  owned: readonly Watched<KubeObject>[];
  /** The client. */
  client: Client;
  /** The memo. */
  versions: Versions;
}

/** Whether a watch holds whole objects of a resource in a namespace. */
function covers(
  source: Source,
  resource: Resource,
  namespace: string | undefined,
): boolean {
  return source.resource === resource.resource &&
    (source.group ?? "") === (resource.group ?? "") &&
    (source.namespaces !== undefined
      ? source.namespaces.includes(namespace ?? "")
      : (!source.namespace || source.namespace === namespace));
}

/** A memo-aware read through the watch of the object's collection. */
export async function readObject<C extends KubeObject>(
  reader: Reader,
  ref: ObjectRef,
  signal: AbortSignal,
): Promise<C | undefined> {
  const watch = reader.watches.find(({ source, metadataOnly }) =>
    !metadataOnly && covers(source, ref, ref.namespace)
  ) as Watched<C> | undefined;
  try {
    return await cachedGet<C>(reader.client, ref, {
      view: watch?.view(),
      versions: reader.versions,
      signal,
    });
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/** {@linkcode ReconcileContext.children}. */
export async function readChildren<C extends KubeObject>(
  reader: Reader,
  primary: KubeObject | undefined,
  resource: Resource,
  signal: AbortSignal,
): Promise<C[]> {
  const { group, kind, namespaced = true } = reader.primary;
  const owns = reader.owned.filter(({ source }) =>
    covers(source, resource, source.namespace)
  );
  if (owns.length === 0) {
    throw new TypeError(
      `The controller ${reader.name} does not own ${
        collectionName({ ...resource, namespace: undefined })
      }: add it to owns to read its children`,
    );
  }
  const uid = primary?.metadata?.uid;
  if (!uid) return [];
  // A namespaced owner's children are in its namespace (owner references
  // never cross namespaces); a cluster-scoped one's anywhere.
  const namespace = namespaced ? primary.metadata.namespace : undefined;
  const found = new Map<string, C>();
  for (const watch of owns) {
    if (namespace !== undefined && !covers(watch.source, resource, namespace)) {
      continue;
    }
    const { namespaces: _, ...bare } = watch.source;
    const source = namespace === undefined
      ? watch.source
      : { ...bare, namespace };
    const items = await cachedList<C>(reader.client, source, {
      // The controller applies its children into this very watch (a
      // sharded member labels them with its shard): the memo's new ones
      // belong in it.
      view: (watch as unknown as Watched<C>).view({ whole: true }),
      versions: reader.versions,
      index: { name: CONTROLLER_UID_INDEX, value: uid },
      signal,
    });
    for (const item of items) {
      const owner = controllerOf(item, { group, kind, namespaced });
      if (owner?.uid === uid) found.set(objectKey(item), item);
    }
  }
  if (owns.length === 1) return [...found.values()];
  // By code unit, as the API server orders keys.
  const keys = [...found.keys()].sort();
  return keys.map((key) => found.get(key)!);
}

/**
 * The handler of an `owns` watch: a change of a child reconciles its
 * controlling owner, and a child the watch brings at the version the memo
 * holds clears that note.
 */
export function childHandler(
  primary: Primary,
  source: Source,
  versions: Versions,
  enqueue: (key: string) => void,
): Handler<KubeObject> {
  const { group, kind, namespaced = true } = primary;
  const toOwner = (child: KubeObject | undefined): void => {
    if (child === undefined) return;
    // No check of the owner's uid against the primary store: a store
    // that lags would drop the event. The reconcile reads the owner.
    const owner = controllerOf(child, { group, kind, namespaced });
    if (owner !== undefined) enqueue(owner.key);
  };
  // Once the watch brings the version the memo holds, the note guards
  // nothing; dropped, it costs the children reads nothing to scan.
  const caughtUp = (child: KubeObject): void =>
    versions.forgetAt(
      objectRef(source, child),
      child.metadata.resourceVersion ?? "",
    );
  return {
    add: (child) => {
      caughtUp(child);
      toOwner(child);
    },
    // Both copies: a child whose owner changed wakes the old one too.
    update: (old, child) => {
      caughtUp(child);
      toOwner(old);
      toOwner(child);
    },
    delete: (child) => toOwner(finalState(child)),
  };
}
