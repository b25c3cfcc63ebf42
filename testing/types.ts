/**
 * The types the fake API server takes and answers: its options, what it
 * records, the resources it serves, and the handles its faults and its
 * network server give back.
 *
 * @module
 */
import type { ObjectRef, Resource } from "../apiclient/resource.ts";
import type { KubeObject } from "../apiclient/types.ts";
import type { PrinterColumn } from "../resource/crd.ts";

/**
 * How a list merges under server-side apply, as a schema's
 * `x-kubernetes-list-type` says: `"atomic"` (replaced whole, one owner),
 * `"set"` (items are scalars, merged by value), or the
 * `x-kubernetes-list-map-keys` of a `map` list (items merged by these
 * fields, such as `["name"]`).
 */
export type ListType = "atomic" | "set" | readonly string[];

/**
 * One resource the fake API server serves (one entry of discovery): a
 * {@linkcode Resource} without a namespace, whose group is always set.
 */
export interface RegisteredResource extends Omit<Resource, "namespace"> {
  /** API group; `""` for the core group (`/api/v1`). */
  group: string;
  /** Kind of one object, such as `ConfigMap`. */
  kind: string;
  /** Kind of a list of objects, such as `ConfigMapList`. */
  listKind: string;
  /** Whether objects live in a namespace. */
  namespaced: boolean;
  /** Whether the resource has a `/status` subresource. */
  statusSubresource: boolean;
  /**
   * Whether its objects carry `metadata.generation`, as custom resources,
   * Pods and CustomResourceDefinitions do (ConfigMaps, Secrets, Services,
   * Events, Leases and Namespaces do not).
   */
  generation: boolean;
  /** Short names kubectl accepts, such as `cm`. */
  shortNames?: readonly string[] | undefined;
  /** The verbs the resource supports, as discovery lists them. */
  verbs: readonly string[];
  /**
   * The columns `kubectl get` shows after NAME, for a resource without
   * built-in columns; absent: one AGE column, as for a custom resource
   * whose definition declares none.
   */
  printerColumns?: readonly PrinterColumn[] | undefined;
  /** The list types it declares, by dotted path (see {@linkcode ResourceRegistration.listTypes}). */
  listTypes?: Readonly<Record<string, ListType>> | undefined;
}

/**
 * A resource to serve, as {@linkcode FakeApiServer.register} takes it: the
 * collection's {@linkcode Resource} fields (`group`, `version`, `resource`;
 * a definition names no namespace) plus what discovery and Tables say of it.
 */
export interface ResourceRegistration extends Omit<Resource, "namespace"> {
  /** Kind of one object, such as `Widget`. */
  kind: string;
  /** Whether objects live in a namespace. Default `true`. */
  namespaced?: boolean | undefined;
  /** Whether the resource has a `/status` subresource. Default `false`. */
  statusSubresource?: boolean | undefined;
  /** Kind of a list. Default `<kind>List`. */
  listKind?: string | undefined;
  /** Short names for discovery, such as `wd`. */
  shortNames?: readonly string[] | undefined;
  /**
   * The columns `kubectl get` shows after NAME, as a
   * CustomResourceDefinition's `additionalPrinterColumns` declares them
   * (`jsonPath` for `JSONPath`). Absent: one AGE column, as the API server
   * defaults. Ignored for the built-in kinds, which have their own columns.
   */
  printerColumns?: readonly PrinterColumn[] | undefined;
  /**
   * How server-side apply merges the resource's lists, by the dotted path
   * of field names (list items skipped), as a CustomResourceDefinition's
   * schema declares with `x-kubernetes-list-type` and
   * `x-kubernetes-list-map-keys`: `{ "spec.rules": ["name"] }` merges the
   * rules by name. A list not named here is merged as the built-in types
   * declare lists of its field name (`containers`, `volumes`, `env`,
   * `imagePullSecrets` and `resourceClaims` by `name`, `conditions` by
   * `type`, `volumeMounts` by `mountPath`, `ports` by
   * `containerPort`/`protocol` in a container and `port`/`protocol`
   * elsewhere, `ownerReferences` by `uid`, `finalizers` as a set), else
   * atomic, as a custom resource's lists are by default.
   */
  listTypes?: Readonly<Record<string, ListType>> | undefined;
}

/** One request the server received, as {@linkcode FakeApiServer.requests} keeps it. */
export interface RecordedRequest {
  /** HTTP method, such as `GET`. */
  method: string;
  /** URL path, without the query. */
  path: string;
  /** The query parameters. */
  query: URLSearchParams;
  /** The body, parsed as JSON when it is JSON; absent when empty. */
  body?: unknown;
  /** When the request arrived (`Date.now()`, so fake time when faked). */
  time: number;
  /**
   * The audit annotations admission gave the request, as kube-apiserver
   * writes them to its audit log: validating admission policies'
   * `auditAnnotations` (`<policy>/<key>`) and their failures under the
   * `Audit` action (`validation.policy.admission.k8s.io/validation_failure`).
   */
  auditAnnotations?: Record<string, string>;
}

/** Which requests to count; every field is optional. */
export interface RequestFilter {
  /** Only this HTTP method. Default: every method. */
  method?: string | undefined;
  /** Only this exact path, or paths the pattern matches. Default: every path. */
  path?: string | RegExp | undefined;
}

/** Options for {@linkcode FakeApiServer.refuse}. */
export interface RefuseOptions {
  /**
   * Only requests of this method (such as `PUT`), or of these methods (such
   * as `["POST", "PATCH"]` to refuse writes alone). Default: every method.
   */
  method?: string | readonly string[] | undefined;
  /** Only this exact path, or paths the pattern matches. Default: every path. */
  path?: string | RegExp | undefined;
  /** `true`: only watch requests; `false`: only other requests. Default: both. */
  watch?: boolean | undefined;
  /** The status code to answer, such as 403, 429, 500 or 503. */
  status: number;
  /** The Status `reason`. Default: the API server's reason for the code. */
  reason?: string | undefined;
  /** The Status `message`. Default: a message like the API server's. */
  message?: string | undefined;
  /** How many requests to refuse. Default: every one until `allow()`. */
  count?: number | undefined;
  /** Sets `details.retryAfterSeconds` in the Status body. Default: unset. */
  retryAfterSeconds?: number | undefined;
  /** Sets the `Retry-After` response header. Default: unset. */
  retryAfterHeader?: number | string | undefined;
}

/** A refusal in force; made by {@linkcode FakeApiServer.refuse}. */
export interface Refusal {
  /** Ends the refusal. */
  allow(): void;
  /** How many more requests it refuses (`Infinity` without a count). */
  readonly remaining: number;
}

/** Options for {@linkcode FakeApiServer.serve}. */
export interface ServeOptions {
  /** Serve HTTPS with the test certificate (see `testCerts`). Default `false`. */
  tls?: boolean | undefined;
}

/** The fake served over the network; made by {@linkcode FakeApiServer.serve}. */
export interface ServedApiServer extends AsyncDisposable {
  /** Base URL, such as `https://127.0.0.1:41234`. */
  readonly url: string;
  /** The CA certificate (PEM) to trust for HTTPS; absent for plain HTTP. */
  readonly caCert: string | undefined;
  /** The port it listens on (kept across `down()`/`up()`). */
  readonly port: number;
  /**
   * Stops listening and waits for the open responses to end; the same as
   * `[Symbol.asyncDispose]()`. The in-memory server goes on.
   */
  stop(): Promise<void>;
}

/** Options for {@linkcode FakeApiServer.holdLease}. */
export interface HoldLeaseOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** The holder to write (`holderIdentity`). */
  identity: string;
  /** When the holder last renewed. Default: now. */
  renewTime?: Date | number | undefined;
  /** When the holder acquired it. Default: `renewTime`. */
  acquireTime?: Date | number | undefined;
  /** `leaseDurationSeconds`. Default 30. */
  leaseDurationSeconds?: number | undefined;
  /** `leaseTransitions`. Default: the stored value, or absent. */
  leaseTransitions?: number | undefined;
}

/** Options for {@linkcode FakeApiServer.landAfterNextRead}. */
export interface LandAfterNextReadOptions {
  /** The object (its path, or an {@linkcode ObjectRef}) whose next GET triggers the write. */
  path: string | ObjectRef;
  /**
   * Changes the object before it is written again; answer a new object or
   * change the given copy. Default: write it unchanged at a new version.
   */
  mutate?: ((object: KubeObject) => KubeObject | void) | undefined;
}

/** Which Events {@linkcode FakeApiServer.eventsAbout} answers. */
export interface EventsAboutOptions {
  /** Kind of the involved object. */
  kind: string;
  /** Name of the involved object. */
  name: string;
  /** Namespace of the involved object. Default: any. */
  namespace?: string | undefined;
}

/** Options for {@linkcode FakeApiServer.corruptNextWatchLine}. */
export interface CorruptOptions {
  /**
   * `true`: send the first half of the line, no newline, then end the stream.
   * `false` (default): send a malformed JSON line and keep the stream open.
   */
  truncate?: boolean | undefined;
}

/** Options for {@linkcode FakeApiServer}. */
export interface FakeApiServerOptions {
  /** Base URL of the in-memory server. Default `http://apiserver.test`. */
  url?: string | undefined;
  /**
   * Milliseconds between the periodic bookmarks of a watch that allows
   * bookmarks, as the API server's watch cache sends one about every minute
   * (clients use them as a heartbeat). `0` sends none but the one 2 s before
   * the watch's timeout (see {@linkcode FakeApiServer.stopBookmarks}).
   * Default 60 000; at least 10.
   */
  bookmarkInterval?: number | undefined;
  /**
   * Show `metadata.managedFields` on objects, as the API server writes it:
   * one entry per manager, operation (`Apply` or `Update`) and subresource,
   * with the fields it owns in `fieldsV1`, as a real API server always
   * returns it (kubectl only hides it when printing). Ownership is tracked
   * either way (so server-side apply conflicts and removes fields alike);
   * `false` only keeps it out of the objects, for a test that compares
   * whole objects. Default `true`.
   */
  managedFields?: boolean | undefined;
  /**
   * Milliseconds between a change that concerns the garbage collector (an
   * owner deleted, a dependent naming an absent owner, a Foreground or
   * Orphan delete) and its next round, on the global (so possibly fake)
   * clock; each round may cause the next, one delay apart (a dependent's
   * own dependents). Bounded to 0..60 000. Default 10.
   */
  garbageCollectionDelay?: number | undefined;
  /**
   * Start with the objects a fresh cluster holds, as recorded from
   * kube-apiserver 1.37.2 with its controller manager: the namespaces
   * `default`, `kube-system`, `kube-public` and `kube-node-lease` with their
   * `default` ServiceAccounts, the `default/kubernetes` Service (cluster IP
   * 10.96.0.1, no endpoints, as the recorded plane), the bootstrap RBAC
   * roles and bindings, the two system priority classes, the flow-control
   * schemas and priority levels, the local APIServices, two `kube-system`
   * ConfigMaps and the API server's identity Lease (about 200 objects, so
   * the first object a test creates has a resourceVersion above 200).
   * `false` starts with no objects at all: for a test that counts what a
   * cluster-wide list or watch holds. Default `true`.
   */
  freshCluster?: boolean | undefined;
  /**
   * The API server's NamespaceLifecycle admission plugin: a create in a
   * namespace that does not exist is refused (404 `namespaces "x" not
   * found`), one in a Namespace being deleted too (403, `unable to create
   * new content in namespace x because it is being terminated`), and
   * `default`, `kube-system` and `kube-public` are never deleted (403).
   * With {@linkcode FakeApiServerOptions.freshCluster} `false`, the system
   * namespaces pass though absent. `false` lets a test create objects in
   * namespaces it never made. Default `true`.
   */
  namespaceLifecycle?: boolean | undefined;
  /**
   * Sends the fake's calls to admission and conversion webhooks instead of
   * `fetch` over HTTPS: an in-memory transport, for a test on fake time
   * (real sockets and fake timers do not mix). It gets the `Request` the
   * fake would send, with `?timeout=` on its URL; the `caBundle` is not
   * checked then. The call's deadline runs on the global clock either way.
   */
  webhookFetch?: ((request: Request) => Promise<Response>) | undefined;
  /**
   * The origin (`https://host:port`) at which a webhook's
   * `clientConfig.service` is called, for example the loopback address a
   * test serves it on; `undefined` keeps the default, the Service's DNS
   * name `https://<name>.<namespace>.svc:<port>`, as kube-apiserver calls
   * it (which resolves only in a cluster). The certificate is checked for
   * the origin's host.
   */
  resolveService?:
    | ((
      service: { namespace: string; name: string; port: number },
    ) => string | undefined)
    | undefined;
}

/** A Kubernetes Event (core/v1) as the helpers read it. */
export interface EventObject extends KubeObject {
  /** The object the Event is about. */
  involvedObject?: {
    kind?: string | undefined;
    name?: string | undefined;
    namespace?: string | undefined;
    uid?: string | undefined;
    apiVersion?: string | undefined;
  } | undefined;
  /** Short machine-readable reason. */
  reason?: string | undefined;
  /** Human-readable message. */
  message?: string | undefined;
  /** `Normal` or `Warning`. */
  type?: string | undefined;
  /** How many times it happened. */
  count?: number | undefined;
}
