/**
 * Test helpers: an in-memory Kubernetes API server that answers the way the
 * real one does, faults to inject into it, fake time, test certificates and
 * a fake ServiceAccount directory.
 *
 * {@linkcode FakeApiServer} serves the REST API in memory through its
 * `fetch` (no sockets, so a test on fake time is deterministic), or over
 * HTTP and HTTPS on 127.0.0.1 with {@linkcode FakeApiServer.serve}. A test
 * injects faults ({@linkcode FakeApiServer.down}, {@linkcode FakeApiServer.refuse},
 * {@linkcode FakeApiServer.latency}, {@linkcode FakeApiServer.cutWatches},
 * {@linkcode FakeApiServer.corruptNextWatchLine},
 * {@linkcode FakeApiServer.compact}) and reads what the server received in
 * {@linkcode FakeApiServer.requests}.
 *
 * Permissions: none in memory; `--allow-net=127.0.0.1` to serve over the
 * network; `--allow-read` and `--allow-write` on the temp directory for
 * {@linkcode fakeServiceAccount}.
 *
 * It serves every built-in resource of kube-apiserver 1.37 from the start
 * (no `register()` needed): discovery and `/version` as recorded from
 * v1.37.2, each kind's scope, `generation` rule, defaults and status
 * strategy (a status write keeps the metadata it sends, but a
 * Deployment's labels), the `scale` subresource of Deployments,
 * ReplicaSets, StatefulSets and ReplicationControllers, and the name rules
 * of RBAC kinds (any path segment), Namespaces (RFC 1123 labels) and
 * Services (RFC 1035 labels). Tables (`kubectl get`) have the API
 * server's columns for ConfigMaps, Secrets, Namespaces, Pods, Services,
 * Events, Leases, Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs
 * and CronJobs; other built-in kinds get NAME and AGE.
 *
 * A new fake holds a fresh cluster's objects, recorded from a v1.37.2
 * control plane: the system namespaces with their `default`
 * ServiceAccounts, the `default/kubernetes` Service, the bootstrap RBAC
 * roles and bindings, the system priority classes, the flow-control
 * objects, the local APIServices
 * ({@linkcode FakeApiServerOptions.freshCluster}; `false` starts empty).
 *
 * Where the fake differs from the API server, on purpose:
 * - Of the other subresources of built-in kinds, `pods/binding`,
 *   `pods/eviction` (the Pod's PodDisruptionBudget is honoured as its
 *   status says, 429 when it allows no disruption, and spent; nothing
 *   computes that status: a test writes it), `serviceaccounts/token` (an unsigned JWT-shaped
 *   token) and `certificatesigningrequests/approval` (written as its status
 *   is, and owned in `managedFields` as a `status` write) are served; the
 *   rest (`pods/log`, `pods/exec`, `pods/ephemeralcontainers`, ...) answer
 *   404. Virtual kinds the API server only creates (TokenReview,
 *   SubjectAccessReview, Binding, ...) are stored like any other, and
 *   verbs a resource does not list are not refused.
 * - Deleting a Namespace marks it Terminating; the namespace controller's
 *   work (its contents deleted, its conditions, the `kubernetes` finalizer
 *   removed, then the Namespace) runs with the garbage collector, one
 *   {@linkcode FakeApiServerOptions.garbageCollectionDelay} later (on the
 *   global clock, so a test on fake time ticks it). The NamespaceLifecycle
 *   plugin refuses content in an absent (404) or terminating (403)
 *   namespace; {@linkcode FakeApiServerOptions.namespaceLifecycle} `false`
 *   turns it off.
 * - Built-in kinds are validated for what tests most often get wrong: a pod
 *   spec's containers (name and image), a workload's selector (required,
 *   matching its template's labels, immutable), a Job's restart policy,
 *   selector and template, a TLS Secret's keys, a Secret's type, and the
 *   data of an immutable ConfigMap or Secret. Other rules (quantities,
 *   enums, formats, ports, most immutable fields) are not checked, and a
 *   refused Job template is printed as JSON, where the API server prints
 *   its Go struct. Unknown fields are found from the generated schemas of
 *   core/v1, apps/v1 and batch/v1 (`fieldValidation`: a warning by
 *   default, 400 under `Strict`); other groups' unknown fields are kept.
 * - Server-side apply needs a JSON body (YAML is refused). Ownership is
 *   shown in `metadata.managedFields` as the API server shows it (turn it
 *   off with {@linkcode FakeApiServerOptions.managedFields}). Lists merge as
 *   {@linkcode ResourceRegistration.listTypes} and the built-in field names
 *   say, not as an OpenAPI schema does; an item without its key makes its
 *   list atomic (the API server refuses it). Nothing is defaulted first (a
 *   port without `protocol` is keyed without it). Merged list maps keep
 *   the live order, new items last. `Update` entries own a node itself
 *   (`.`) only for list items and maps known by name (`labels`, `data`,
 *   ...), where the API server also owns new struct pointers.
 *   `managedFields` a client sends are ignored.
 * - The garbage collector runs {@linkcode FakeApiServerOptions.garbageCollectionDelay}
 *   (10 ms) after a change that concerns it, on the global (possibly fake)
 *   clock; each round may cause the next. Owners are matched by uid alone
 *   (the API server also checks kind, name and namespace).
 * - Request bodies in protobuf (`application/vnd.kubernetes.protobuf`,
 *   as controller-runtime's typed clients and `kubectl create deployment`
 *   send for built-in kinds) are read for every built-in kind of the
 *   release (create, update, DeleteOptions) into the JSON the Go types
 *   write; a body of another kind gets 415, whose message says to send
 *   JSON. Quantities are kept as sent (clients send the canonical form).
 *   Answers are JSON whatever the `Accept`.
 * - Metadata-only reads (`as=PartialObjectMetadata` and
 *   `as=PartialObjectMetadataList`, `meta.k8s.io` `v1` or `v1beta1`) and
 *   Tables are the only conversions; an `Accept` the fake cannot answer
 *   gets JSON, where the API server answers 406.
 * - Strategic merge patches of built-in kinds merge lists by the keys the
 *   built-in field names declare (containers, volumes and env by `name`,
 *   ports by `containerPort` or `port`, conditions by `type`, finalizers
 *   as a set; other lists are replaced), with the `$patch`,
 *   `$deleteFromPrimitiveList` and `$retainKeys` directives;
 *   `$setElementOrder` is ignored. Resources served from a
 *   CustomResourceDefinition refuse them (415) as the API server does;
 *   other registered resources merge them like merge patches.
 * - CustomResourceDefinitions created through the API serve their
 *   resources at once (the API server takes a moment) and are Established
 *   a moment after the create answers; names are not checked against other
 *   definitions (no `NamesAccepted: False`); deleting one removes its
 *   resource and objects at once, with no `Terminating` condition or
 *   cleanup finalizer. `allOf`, `anyOf`, `oneOf` and `not` are accepted
 *   but not evaluated. CEL rules (`x-kubernetes-validations`) are
 *   evaluated on every write, in the API server's words, and updates are
 *   ratcheted (values kept pass a schema or rule tightened since); a
 *   rule's cost is not estimated when its definition is written (runtime
 *   cost limits apply). Other definition checks are limited to the
 *   name, the one storage version and structural schemas (not the scale
 *   paths or selectable fields) and the `conversion` stanza. Conversion
 *   webhooks (`strategy: Webhook`) are called as kube-apiserver calls them
 *   without its watch cache: one review per object decoded or encoded in
 *   another version than the storage version (the watch cache converts
 *   each change once per version and answers lists from its copies).
 *   Served as the API server serves them: each version's schema (defaults
 *   of the version written, pruning by the storage version's and the
 *   version read), `/scale` (GET, PUT, merge and JSON patches; apply and
 *   strategic patches of a Scale are merged like merge patches), field
 *   selectors on `selectableFields` (400 for another field), the 299
 *   `Warning` of a deprecated version. Open watches of a deleted
 *   definition's resource are not ended.
 * - `generation` moves when anything but `metadata` and `status` changes
 *   (on status changes too when the resource has no status subresource, as
 *   for custom resources); which kinds carry one follows the API server.
 * - Field selectors take the fields the API server takes (400 for
 *   another): `metadata.name`, `metadata.namespace`, a built-in kind's
 *   field labels (a Pod's `spec.nodeName` and `status.phase`, an Event's
 *   `involvedObject.*`, ...) and a custom resource's `selectableFields`.
 *   An Event's `source` is compared with the whole `source` object (the
 *   API server reads its component).
 * - History is kept until {@linkcode FakeApiServer.compact}, so a test
 *   decides when a version becomes too old.
 * - A watch without `timeoutSeconds` (or with 0) stays open until it is
 *   cancelled, where the API server picks 30 to 60 minutes; a test would
 *   otherwise see watches end at a random time.
 * - A watch without `sendInitialEvents` and without a version gets the
 *   current objects and no `k8s.io/initial-events-end` bookmark, as from an
 *   API server with the WatchList feature off (with it on, such a watch
 *   that allows bookmarks also gets that bookmark), so a client cannot come
 *   to depend on it.
 * - Bookmarks carry only `resourceVersion` in `metadata` (the API server's
 *   built-in kinds also write `creationTimestamp: null`).
 * - Defaults are applied to the common built-in kinds as the release's
 *   defaulting functions and create strategies set them (Pods and pod
 *   templates, Deployments, StatefulSets, DaemonSets, ReplicaSets,
 *   ReplicationControllers, Jobs, CronJobs, Services, Secrets,
 *   PersistentVolumes and claims, NetworkPolicies, HorizontalPodAutoscalers,
 *   PriorityClasses, StorageClasses, ValidatingAdmissionPolicies,
 *   PriorityLevelConfigurations, DeviceClasses, CSIDrivers), with the
 *   empty structs and zero statuses Go's encoding writes; other kinds (a
 *   VolumeAttributesClass, for one) get none. A Service's cluster IP is the next free one of
 *   10.96.0.0/16 in order from 10.96.0.2 (the API server picks one at
 *   random; the `kubernetes` Service holds 10.96.0.1), and a
 *   requested one is not checked against those in use. A Pod's QoS class
 *   compares quantities as written. Of the default admission plugins, a
 *   new Pod gets its ServiceAccount (403 when the account does not exist
 *   in a namespace the fake holds; its projected token volume
 *   `kube-api-access-<5>` mounted into every container without a mount at
 *   the token's path, unless automount is off; its image pull secrets),
 *   DefaultTolerationSeconds' tolerations, and its PriorityClass's
 *   priority and preemption policy (or the global default's; 403 for a
 *   missing class); a Node its not-ready taint; a claim its protection
 *   finalizer. A new Namespace gets its `default` ServiceAccount at once
 *   (the ServiceAccount controller's work, a few milliseconds later on a
 *   real cluster, where a Pod created before it is refused).
 * - Admission webhooks (Validating/MutatingWebhookConfigurations created
 *   through the API) are called over HTTPS at `clientConfig.url`, or at
 *   a `service` reference's DNS name unless
 *   {@linkcode FakeApiServerOptions.resolveService} says where it is
 *   served (the certificate is then checked for that host, not the
 *   Service's name). The `caBundle` is added to
 *   Deno's default roots rather than being the only one trusted. The text
 *   after `Post "<url>": ` in a failure to call is Deno's, not Go's.
 *   A Service's port is always shown in that URL, as Go prints it.
 *   `reinvocationPolicy` is honoured (one more round for the `IfNeeded`
 *   webhooks called before a later change). `matchConditions` are CEL,
 *   evaluated by the package's CEL engine in the API server's environment
 *   (variables `object`, `oldObject`, `request`, with its libraries); an
 *   expression that does not compile, or is no `bool`, is refused with
 *   422 in the API server's words. One naming `authorizer` is refused too
 *   (the cause says the fake does not support it), where kube-apiserver
 *   would take it; an evaluation error applies `failurePolicy`, after
 *   `failed to evaluate match conditions: `. `matchPolicy: Equivalent`
 *   is not applied (there are no equivalent resources); the `scale`
 *   subresource and deletes of a collection are not sent to webhooks;
 *   `userInfo` is always `system:anonymous`. As kube-apiserver does,
 *   ownership in `managedFields` is recorded before the mutating webhooks,
 *   so what only a webhook set is owned by no one.
 *
 * @example Serve a custom resource from its CustomResourceDefinition
 * ```ts
 * import assert from "node:assert/strict";
 * import { FakeApiServer } from "@liken/kubernetes/testing";
 *
 * await using server = new FakeApiServer();
 * const post = (path: string, body: unknown) =>
 *   server.fetch(`${server.url}${path}`, { method: "POST", body: JSON.stringify(body) });
 * const size = { type: "integer", minimum: 1 };
 * const spec = { type: "object", properties: { size } };
 * const schema = { openAPIV3Schema: { type: "object", properties: { spec } } };
 * await (await post("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", {
 *   metadata: { name: "gadgets.example.com" },
 *   spec: {
 *     group: "example.com",
 *     names: { plural: "gadgets", kind: "Gadget" },
 *     scope: "Namespaced",
 *     versions: [{ name: "v1", served: true, storage: true, schema }],
 *   },
 * })).body?.cancel();
 * const gadgets = "/apis/example.com/v1/namespaces/default/gadgets";
 * const bad = await post(gadgets, { metadata: { name: "g" }, spec: { size: 0 } });
 * assert.equal(bad.status, 422);
 * await bad.body?.cancel();
 * const made = await post(gadgets, { metadata: { name: "g" }, spec: { size: 1, x: 1 } });
 * assert.deepEqual((await made.json()).spec, { size: 1 });
 * ```
  *

 * @example A test of code that writes, waits on the clock, and writes again
 * ```ts
 * import assert from "node:assert/strict";
 * import { Client, type KubeObject } from "@liken/kubernetes/apiclient";
 * import { FakeApiServer, installFakeTime } from "@liken/kubernetes/testing";
 *
 * interface ConfigMap extends KubeObject {
 *   data: Record<string, string>;
 * }
 *
 * // The code under test: create a ConfigMap, then mark it done 5 s later.
 * async function work(client: Client): Promise<void> {
 *   const path = "/api/v1/namespaces/default/configmaps";
 *   await client.create(path, { metadata: { name: "job" }, data: { state: "started" } });
 *   await new Promise((resolve) => setTimeout(resolve, 5_000));
 *   await client.patch(`${path}/job`, { data: { state: "done" } }, { type: "merge" });
 * }
 *
 * using time = installFakeTime({ now: Date.UTC(2030, 0, 1) });
 * await using server = new FakeApiServer();
 * const client = new Client(server.url, { fetch: server.fetch });
 *
 * const done = work(client);
 * await time.settle(); // the create is answered; the code waits on its timer
 * assert.equal(server.count({ method: "PATCH" }), 0);
 * await time.tick(5_000); // five fake seconds, no real waiting
 * await done;
 *
 * assert.deepEqual(server.requests.map((r) => r.method), ["POST", "PATCH"]);
 * assert.deepEqual(server.requests[1]!.body, { data: { state: "done" } });
 * assert.equal(server.requests[1]!.time, Date.UTC(2030, 0, 1, 0, 0, 5));
 * const stored = server.object<ConfigMap>(
 *   "/api/v1/namespaces/default/configmaps/job",
 * );
 * assert.equal(stored?.data.state, "done");
 * ```
 *
 * @module
 */
export * from "./fake_server.ts";
export type {
  CorruptOptions,
  EventObject,
  EventsAboutOptions,
  FakeApiServerOptions,
  HoldLeaseOptions,
  LandAfterNextReadOptions,
  ListType,
  RecordedRequest,
  Refusal,
  RefuseOptions,
  RegisteredResource,
  RequestFilter,
  ResourceRegistration,
  ServedApiServer,
  ServeOptions,
} from "./types.ts";
export * from "./fake_time.ts";
export * from "./certs.ts";
export * from "./service_account.ts";
export * from "./real_control_plane.ts";
