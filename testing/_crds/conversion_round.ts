/**
 * The conversions one request needs from a conversion webhook, for the
 * synchronous verbs. kube-apiserver converts each object where it crosses
 * the storage boundary: written in another version than the storage
 * version (one review before it is stored), and read in another version
 * (one review per object decoded: the object a get answers, each item of a
 * list, the old object of an update or patch, the object a write
 * answers). The verbs are synchronous and webhook calls are not, so a
 * request runs in rounds (`_crds/conversion.ts`): a read that meets an object
 * not converted yet notes it and goes on; a write that meets one stops.
 * The notes are converted (in order, one review each) and the request runs
 * again, now finding them. Results are keyed by what a webhook may read
 * and change (all but the metadata the API server restores), so an
 * object's new uid or resourceVersion in the next round still finds its
 * result.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { KubeObject } from "../../apiclient/types.ts";
import { clone } from "../_verbs/patch.ts";
import { StatusError } from "../_verbs/status.ts";

/** A conversion a round met and did not have. */
export interface Pending {
  /** The object as it was (a copy). */
  input: KubeObject;
  /** The `apiVersion` wanted. */
  target: string;
  /** Its key in the round's results. */
  key: string;
  /**
   * For a write: the object as it is stored once converted, and the
   * version the request reads it back in (the API server decodes what it
   * wrote to answer the request: one more review, made at once).
   */
  write?: {
    stored: (converted: KubeObject) => KubeObject;
    back: string;
  } | undefined;
}

/** A webhook's converted object, or why the conversion failed. */
export type Converted = { object: KubeObject } | { error: string };

/** The conversions of one request. */
export class ConversionRound {
  /** The webhook's answers so far, by key. */
  readonly results: Map<string, Converted> = new Map();
  /** What this round met and did not have. */
  pending: Pending[] = [];
  /** Whether this round stored a converted object. */
  wrote = false;
  #counts = new Map<string, number>();

  /** Starts a pass of a verb: the same conversion met again is another. */
  startPass(): void {
    this.#counts.clear();
  }

  /**
   * The key of the next time this pass meets `key` (the API server
   * converts an object each time it decodes it).
   */
  next(key: string): string {
    const n = this.#counts.get(key) ?? 0;
    this.#counts.set(key, n + 1);
    return `${n}#${key}`;
  }

  /** The key the next meeting of `key` in this pass will have. */
  upcoming(key: string): string {
    return `${this.#counts.get(key) ?? 0}#${key}`;
  }
}

/**
 * Stops a verb before it changes anything while the round still waits
 * for conversions (reads go on, to note each; a change must not).
 */
export function awaitConversions(): void {
  if ((CURRENT.getStore()?.pending.length ?? 0) > 0) {
    throw new ConversionNeeded();
  }
}

/** Starts a pass of a verb in the request's round, if it has one. */
export function startPass(): void {
  CURRENT.getStore()?.startPass();
}

/** Thrown where a write needs a conversion the round does not have yet. */
export class ConversionNeeded extends Error {}

const CURRENT = new AsyncLocalStorage<ConversionRound>();

/** Runs `fn` with `round` as the request's conversions. */
export function inRound<T>(round: ConversionRound, fn: () => T): T {
  return CURRENT.run(round, fn);
}

/** Where an object is in etcd, as the API server's storage errors name it. */
export interface StoredAt {
  /** The API group. */
  group: string;
  /** The plural resource name. */
  resource: string;
  /** Whether the kind lives in namespaces. */
  namespaced: boolean;
}

/**
 * A stored object read in `target` through the webhook: the converted
 * object (its metadata restored but labels and annotations), or, outside
 * a round or when not converted yet, the object as stored. A failed
 * conversion throws the API server's 500 for an object it cannot decode.
 */
export function readConverted(
  object: KubeObject,
  target: string,
  where: StoredAt,
): KubeObject {
  const round = CURRENT.getStore();
  if (round === undefined) return object;
  const key = round.next(keyOf(object, target, true));
  const found = round.results.get(key);
  if (found === undefined) {
    round.pending.push({ input: clone(object), target, key });
    return object;
  }
  if ("error" in found) {
    throw new ReadConversionError(object, where, found.error);
  }
  return restored(object, found.object);
}

/**
 * An object written in another version, as stored (`target`, the storage
 * version), converted by the webhook; throws `ConversionNeeded` when the
 * round does not have it yet (or met another conversion first), and the
 * API server's 500 when the conversion failed.
 */
export function writeConverted(
  object: KubeObject,
  target: string,
  back: string,
  stored: (converted: KubeObject) => KubeObject,
): KubeObject {
  const round = CURRENT.getStore();
  if (round === undefined) {
    throw new Error(
      "A write through a conversion webhook outside a conversion round",
    );
  }
  const key = round.next(keyOf(object, target, false));
  const found = round.results.get(key);
  if (found === undefined) {
    if (round.pending.length === 0) {
      round.pending.push({
        input: clone(object),
        target,
        key,
        write: { stored, back },
      });
    }
    throw new ConversionNeeded();
  }
  if (round.pending.length > 0) throw new ConversionNeeded();
  if ("error" in found) {
    // A plain error on the API server: 500, no reason, no details.
    throw new StatusError({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: found.error,
      code: 500,
    });
  }
  round.wrote = true;
  return stored(restored(object, found.object));
}

/** The key of a conversion: what the webhook may read and change. */
export function keyOf(
  object: KubeObject,
  target: string,
  named: boolean,
): string {
  const { metadata, ...body } = object;
  return canonical([
    target,
    named ? metadata.namespace ?? "" : "",
    named ? metadata.name ?? "" : "",
    metadata.labels ?? null,
    metadata.annotations ?? null,
    body,
  ]);
}

/** `converted` with the metadata of `original` but its labels and annotations. */
export function restored(
  original: KubeObject,
  converted: KubeObject,
): KubeObject {
  const metadata = clone(original.metadata);
  for (const field of ["labels", "annotations"] as const) {
    const value = converted.metadata?.[field];
    if (value === undefined || value === null) delete metadata[field];
    else metadata[field] = clone(value);
  }
  return { ...clone(converted), metadata };
}

/**
 * The API server's 500 for an object in storage that does not convert:
 * `StorageError: corrupt object` naming its key and revision.
 */
export class ReadConversionError extends StatusError {
  /** The storage error, without the `Internal error occurred` prefix. */
  readonly storage: string;
  /** The object's etcd key, with the `/registry` prefix. */
  readonly key: string;

  constructor(object: KubeObject, where: StoredAt, error: string) {
    const { namespace, name, resourceVersion } = object.metadata;
    const path = `/${where.group}/${where.resource}/${
      where.namespaced ? `${namespace ?? ""}/` : ""
    }${name ?? ""}`;
    const storage = (key: string): string =>
      `StorageError: corrupt object, Code: 7, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=${
        resourceVersion ?? ""
      }: ${error}`;
    super({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Internal error occurred: ${storage(path)}`,
      reason: "InternalError",
      details: { causes: [{ message: storage(path) }] },
      code: 500,
    });
    this.key = `/registry${path}`;
    this.storage = storage(this.key);
  }
}

/**
 * The API server's 500 for a list some of whose objects do not convert:
 * each is tried, and the first is named with how many more failed.
 */
export function listReadError(
  failed: ReadConversionError[],
  where: StoredAt & { plural: string },
): StatusError {
  const first = failed[0]!;
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more)` : "";
  return new StatusError({
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message:
      `failed to read one or more ${where.plural} from the storage: ${first.storage}${more}`,
    reason: "StorageReadError",
    details: {
      name: "list",
      group: where.group,
      kind: where.resource,
      causes: failed.map((f) => ({
        reason: "UnexpectedServerResponse",
        message: f.storage,
        field: f.key,
      })),
    },
    code: 500,
  });
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${
      entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")
    }}`;
  }
  return JSON.stringify(value) ?? "null";
}
