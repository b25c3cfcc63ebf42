/**
 * What the fake API server holds between requests: the store, the resources
 * it serves, what it received, its open watches, and the pending writes and
 * corruption a test asked for. Its verbs, watches and helpers share it.
 *
 * @module
 */
import type { KubeObject } from "../../apiclient/types.ts";
import { BUILT_IN_RESOURCES } from "./registry.ts";
import { Store } from "./store.ts";
import type {
  CorruptOptions,
  RecordedRequest,
  RegisteredResource,
} from "../types.ts";
import type { WatchStream } from "../_watch/watch_stream.ts";
import type { Entry } from "../_apply/managed.ts";
import type { WebhookTransport } from "../_admission/webhook_client.ts";

/**
 * What the admission webhooks' passes over a write hook into its verb (see
 * `_admission/webhooks.ts`); each hook may throw to stop the verb there.
 */
export interface AdmissionHooks {
  /** At the mutation point, after decoding and defaulting: the object to go on with. */
  mutate(resource: RegisteredResource, object: KubeObject): KubeObject;
  /** Just before the write (after every rule and validation); `object` absent on DELETE. */
  validate(
    resource: RegisteredResource,
    object: KubeObject | undefined,
    old: KubeObject | undefined,
  ): void;
  /** The uid, creationTimestamp and generated name a create keeps from an earlier pass. */
  pins?: { uid: string; creationTimestamp: string; name: string } | undefined;
  /**
   * The object before the mutating webhooks: managedFields are computed
   * from it, since kube-apiserver records ownership before mutating
   * admission (what only a webhook set is owned by no one).
   */
  unowned?: KubeObject | undefined;
}

const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";

/** A write to make after the next GET of an object's path. */
export interface Landing {
  /** The object's path. */
  path: string;
  /** Changes the object before it is written again. */
  mutate?: ((object: KubeObject) => KubeObject | void) | undefined;
}

/** The state of one fake API server. */
export class ServerState {
  /** Every object, with history. */
  readonly store: Store = new Store();
  /** Every request received, oldest first. */
  readonly requests: RecordedRequest[] = [];
  /** The open watch streams. */
  readonly watches: Set<WatchStream> = new Set();
  /** The creation order of every object, by uid. */
  readonly created: Map<string, number> = new Map();
  /** Milliseconds between the periodic bookmarks of a watch; 0 for none. */
  readonly bookmarkInterval: number;
  /** Whether the periodic bookmarks are stopped (a test's fault). */
  bookmarksStopped = false;
  /** Whether objects show `metadata.managedFields`. */
  readonly managedFields: boolean;
  /** Who owns which fields of each object, by uid (kept when not shown). */
  readonly owners: Map<string, Entry[]> = new Map();
  /** The resources served, built-in and registered. */
  resources: RegisteredResource[] = [...BUILT_IN_RESOURCES];
  /** The writes to make after a GET, by path. */
  landings: Landing[] = [];
  /** The field manager of the request being answered. */
  manager = "unknown";
  /** The warnings the request being answered earned (`Warning` headers). */
  warnings: string[] = [];
  /** The admission hooks of the write being answered, if webhooks are called. */
  admission: AdmissionHooks | undefined;
  /** How webhooks are called (an in-memory transport, Service origins). */
  webhookTransport: WebhookTransport = {};
  /** The corruption the next watch line gets. */
  corrupt: CorruptOptions | undefined;
  /** Whether creates need their namespace (NamespaceLifecycle). */
  namespaceLifecycle = true;
  /**
   * Whether it started with a fresh cluster's objects; without them the
   * system namespaces pass NamespaceLifecycle though absent.
   */
  freshCluster = true;
  #createdCount = 0;
  #nameSeed = 1;

  /** A state with the built-in resources and no objects. */
  constructor(
    options: { bookmarkInterval: number | undefined; managedFields: boolean },
  ) {
    // Default 60 s, at least 10 ms, 0 (or nonsense) for none.
    const ms = options.bookmarkInterval ?? 60_000;
    this.bookmarkInterval = Number.isFinite(ms) && ms > 0
      ? Math.max(10, ms)
      : 0;
    this.managedFields = options.managedFields;
    this.store.subscribe((change) => {
      const uid = change.object.metadata.uid;
      if (change.type === "DELETED" && uid) this.owners.delete(uid);
    });
  }

  /** Notes that the object of `uid` was created now. */
  noteCreated(uid: string): void {
    this.created.set(uid, ++this.#createdCount);
  }

  /** The suffix of the next `generateName`. */
  suffix(): string {
    // A deterministic sequence that looks like the API server's random one.
    let n = (this.#nameSeed = (this.#nameSeed * 1103515245 + 12345) % 2 ** 31);
    let out = "";
    for (let i = 0; i < 5; i++) {
      out += NAME_ALPHABET[n % NAME_ALPHABET.length];
      n = Math.floor(n / NAME_ALPHABET.length);
    }
    return out;
  }

  /** Takes the corruption the next watch line gets, once. */
  takeCorruption(): CorruptOptions | undefined {
    const corrupt = this.corrupt;
    this.corrupt = undefined;
    return corrupt;
  }
}
