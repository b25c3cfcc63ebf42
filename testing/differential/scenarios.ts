/**
 * The scenarios of the differential suite: the same requests sent to the
 * fake and to a real kube-apiserver, whose answers are compared after
 * {@linkcode normalise}. Each runs in its own namespace.
 *
 * @module
 */

import type { Run } from "./_target.ts";

/** One named scenario. */
export interface Scenario {
  /** Its name, also its golden file's. */
  name: string;
  /** Prefixes of `generateName` it uses (normalised to `<gen>`). */
  generated?: readonly string[];
  /** Needs the garbage collector or the namespace controller. */
  controllers?: boolean;
  /**
   * Runs on the API server without the watch cache, whose reads come from
   * etcd, so a compaction shows at once (410 Gone).
   */
  noWatchCache?: boolean;
  /** Sends its requests. */
  run(run: Run, hooks: Hooks): Promise<void>;
}

/** What a scenario may ask of the server beyond requests. */
export interface Hooks {
  /** Compacts the server's history up to now (etcd's compaction). */
  compact(): Promise<void>;
}

const JSON_PATCH = "application/json-patch+json";
const MERGE_PATCH = "application/merge-patch+json";
const STRATEGIC_PATCH = "application/strategic-merge-patch+json";
const APPLY_PATCH = "application/apply-patch+yaml";

function configMap(
  name: string,
  data: Record<string, string> = {},
  metadata: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name, ...metadata },
    data,
  };
}

function rvOf(body: unknown): string {
  return (body as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
}

function uidOf(body: unknown): string {
  return (body as { metadata: { uid: string } }).metadata.uid;
}

/** Every scenario, in order. */
export const SCENARIOS: readonly Scenario[] = [
  {
    name: "configmap-crud",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const made = await r.send("create", "POST", cms, {
        body: configMap("a", { k: "v" }),
      });
      await r.send("get", "GET", `${cms}/a`);
      await r.send("create again", "POST", cms, { body: configMap("a") });
      await r.send("get missing", "GET", `${cms}/missing`);
      const stale = configMap("a", { k: "w" }, {
        resourceVersion: String(Number(rvOf(made.body)) - 1),
      });
      await r.send("replace stale", "PUT", `${cms}/a`, { body: stale });
      await r.send("replace current", "PUT", `${cms}/a`, {
        body: configMap("a", { k: "w" }, { resourceVersion: rvOf(made.body) }),
      });
      await r.send("replace without version", "PUT", `${cms}/a`, {
        body: configMap("a", { k: "x" }),
      });
      await r.send("replace wrong name", "PUT", `${cms}/a`, {
        body: configMap("b"),
      });
      await r.send("replace missing", "PUT", `${cms}/missing`, {
        body: configMap("missing"),
      });
      await r.send("delete", "DELETE", `${cms}/a`);
      await r.send("delete again", "DELETE", `${cms}/a`);
    },
  },
  {
    name: "patch-dialects",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, {
        body: configMap("p", { a: "1" }, { labels: { x: "1" } }),
      });
      await r.send("merge", "PATCH", `${cms}/p`, {
        body: { data: { b: "2" }, metadata: { labels: { x: null } } },
        contentType: MERGE_PATCH,
      });
      await r.send("strategic", "PATCH", `${cms}/p`, {
        body: { metadata: { labels: { y: "2" } } },
        contentType: STRATEGIC_PATCH,
      });
      await r.send("json", "PATCH", `${cms}/p`, {
        body: [
          { op: "add", path: "/data/c", value: "3" },
          { op: "replace", path: "/data/a", value: "10" },
        ],
        contentType: JSON_PATCH,
      });
      await r.send("json test fails", "PATCH", `${cms}/p`, {
        body: [{ op: "test", path: "/data/a", value: "nope" }],
        contentType: JSON_PATCH,
      });
      await r.send("json remove missing", "PATCH", `${cms}/p`, {
        body: [{ op: "remove", path: "/data/zzz" }],
        contentType: JSON_PATCH,
      });
      await r.send("malformed body", "PATCH", `${cms}/p`, {
        body: "{not json",
        contentType: MERGE_PATCH,
      });
      await r.send("missing object", "PATCH", `${cms}/missing`, {
        body: { data: { a: "1" } },
        contentType: MERGE_PATCH,
      });
      await r.send("stale version in merge", "PATCH", `${cms}/p`, {
        body: { metadata: { resourceVersion: "1" }, data: { d: "4" } },
        contentType: MERGE_PATCH,
      });
      await r.send("unsupported type", "PATCH", `${cms}/p`, {
        body: { data: {} },
        contentType: "application/xml",
      });
    },
  },
  {
    name: "names",
    generated: ["gen-"],
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("invalid name", "POST", cms, {
        body: configMap("Bad_Name"),
      });
      await r.send("name too long", "POST", cms, {
        body: configMap("x".repeat(254)),
      });
      await r.send("no name", "POST", cms, { body: configMap("") });
      await r.send("generated", "POST", cms, {
        body: {
          apiVersion: "v1",
          kind: "ConfigMap",
          metadata: { generateName: "gen-" },
        },
      });
      await r.send("namespace mismatch", "POST", cms, {
        body: configMap("m", {}, { namespace: "elsewhere" }),
      });
      await r.send("bad label", "POST", cms, {
        body: configMap("l", {}, { labels: { "a b": "c" } }),
      });
      await r.send("bad data key", "POST", cms, {
        body: configMap("d", { "a/b": "c" }),
      });
      await r.send("wrong kind", "POST", cms, {
        body: { apiVersion: "v1", kind: "Secret", metadata: { name: "k" } },
      });
    },
  },
  {
    name: "list-paging",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      for (const name of ["c1", "c2", "c3", "c4", "c5"]) {
        await r.send(`create ${name}`, "POST", cms, {
          body: configMap(name),
          quiet: true,
        });
      }
      const first = await r.send("page 1", "GET", `${cms}?limit=2`);
      const token = (first.body as { metadata: { continue?: string } })
        .metadata.continue ?? "";
      const second = await r.send(
        "page 2",
        "GET",
        `${cms}?limit=2&continue=${encodeURIComponent(token)}`,
      );
      const next = (second.body as { metadata: { continue?: string } })
        .metadata.continue ?? "";
      await r.send(
        "page 3",
        "GET",
        `${cms}?limit=2&continue=${encodeURIComponent(next)}`,
      );
      await r.send("bad token", "GET", `${cms}?limit=2&continue=garbage`);
      await r.send("limit 0 is no limit", "GET", `${cms}?limit=0`);
    },
  },
  {
    name: "selectors",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const labelled: [string, Record<string, string>][] = [
        ["s1", { app: "web", tier: "front" }],
        ["s2", { app: "web", tier: "back" }],
        ["s3", { app: "db" }],
      ];
      for (const [name, labels] of labelled) {
        await r.send(`create ${name}`, "POST", cms, {
          body: configMap(name, {}, { labels }),
          quiet: true,
        });
      }
      const names = async (step: string, query: string): Promise<void> => {
        await r.send(step, "GET", `${cms}?${query}`);
      };
      await names("equality", "labelSelector=app%3Dweb");
      await names("inequality", "labelSelector=app!%3Dweb");
      await names("set", "labelSelector=tier%20in%20(front%2Cmiddle)");
      await names("exists", "labelSelector=tier");
      await names("not exists", "labelSelector=!tier");
      await names("invalid label selector", "labelSelector=a%3D%3D%3Db");
      await names("field name", "fieldSelector=metadata.name%3Ds3");
      await names(
        "field namespace",
        `fieldSelector=metadata.namespace%3D${r.namespace}`,
      );
      await names("unsupported field", "fieldSelector=data.k%3Dv");
      await names("invalid field selector", "fieldSelector=metadata.name");
    },
  },
  {
    name: "watch-events",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const list = await r.send("list", "GET", cms);
      const rv = rvOf(list.body);
      await r.watch("watch", `${cms}?watch=1&resourceVersion=${rv}`, {
        events: 3,
        during: async () => {
          await r.send("create", "POST", cms, { body: configMap("w") });
          await r.send("update", "PATCH", `${cms}/w`, {
            body: { data: { k: "v" } },
            contentType: MERGE_PATCH,
          });
          await r.send("delete", "DELETE", `${cms}/w`);
        },
      });
    },
  },
  {
    name: "watch-initial-events",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, { body: configMap("i1") });
      await r.watch(
        "streaming list",
        `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`,
        { events: 2 },
      );
      await r.watch(
        "without bookmarks",
        `${cms}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan`,
        { events: 1 },
      );
      await r.watch(
        "without match",
        `${cms}?watch=1&sendInitialEvents=true&allowWatchBookmarks=true`,
        { events: 1 },
      );
    },
  },
  {
    name: "watch-gone",
    noWatchCache: true,
    async run(r, hooks): Promise<void> {
      const cms = r.path("configmaps");
      const made = await r.send("create", "POST", cms, {
        body: configMap("g"),
      });
      const old = rvOf(made.body);
      for (const v of ["1", "2", "3"]) {
        await r.send(`update ${v}`, "PATCH", `${cms}/g`, {
          body: { data: { v } },
          contentType: MERGE_PATCH,
          quiet: true,
        });
      }
      await hooks.compact();
      await r.watch(
        "watch from compacted",
        `${cms}?watch=1&resourceVersion=${old}`,
        {
          events: 1,
        },
      );
      await r.send(
        "list from compacted",
        "GET",
        `${cms}?resourceVersion=${old}&resourceVersionMatch=Exact`,
      );
    },
  },
  {
    name: "finalizers",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, {
        body: configMap("f", {}, { finalizers: ["example.com/hold"] }),
      });
      await r.send("delete", "DELETE", `${cms}/f`);
      await r.send("get while deleting", "GET", `${cms}/f`);
      await r.send("add finalizer while deleting", "PATCH", `${cms}/f`, {
        body: {
          metadata: { finalizers: ["example.com/hold", "example.com/more"] },
        },
        contentType: MERGE_PATCH,
      });
      await r.send("release", "PATCH", `${cms}/f`, {
        body: { metadata: { finalizers: null } },
        contentType: MERGE_PATCH,
      });
      await r.send("gone", "GET", `${cms}/f`);
    },
  },
  {
    name: "delete-preconditions",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const made = await r.send("create", "POST", cms, {
        body: configMap("d"),
      });
      await r.send("wrong uid", "DELETE", `${cms}/d`, {
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          preconditions: { uid: "00000000-0000-0000-0000-000000000000" },
        },
      });
      await r.send("wrong version", "DELETE", `${cms}/d`, {
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          preconditions: { resourceVersion: "1" },
        },
      });
      await r.send("right uid", "DELETE", `${cms}/d`, {
        body: {
          kind: "DeleteOptions",
          apiVersion: "v1",
          preconditions: { uid: uidOf(made.body) },
        },
      });
    },
  },
  {
    name: "server-side-apply",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("apply a", "PATCH", `${cms}/s?fieldManager=a`, {
        body: configMap("s", { x: "1", y: "1" }),
        contentType: APPLY_PATCH,
      });
      await r.send("apply b conflicts", "PATCH", `${cms}/s?fieldManager=b`, {
        body: configMap("s", { x: "2" }),
        contentType: APPLY_PATCH,
      });
      await r.send(
        "apply b forced",
        "PATCH",
        `${cms}/s?fieldManager=b&force=true`,
        {
          body: configMap("s", { x: "2" }),
          contentType: APPLY_PATCH,
        },
      );
      await r.send("apply a drops y", "PATCH", `${cms}/s?fieldManager=a`, {
        body: configMap("s", {}),
        contentType: APPLY_PATCH,
      });
      await r.send("apply without manager", "PATCH", `${cms}/s`, {
        body: configMap("s", { z: "1" }),
        contentType: APPLY_PATCH,
      });
      await r.send("apply wrong name", "PATCH", `${cms}/s?fieldManager=a`, {
        body: configMap("other", {}),
        contentType: APPLY_PATCH,
      });
      await r.send("get", "GET", `${cms}/s`);
    },
  },
  {
    name: "dry-run",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create dry", "POST", `${cms}?dryRun=All`, {
        body: configMap("dry"),
      });
      await r.send("not stored", "GET", `${cms}/dry`);
      await r.send("create", "POST", cms, { body: configMap("dry") });
      await r.send("delete dry", "DELETE", `${cms}/dry?dryRun=All`);
      await r.send("still there", "GET", `${cms}/dry`);
      await r.send("bad dry run", "POST", `${cms}?dryRun=Some`, {
        body: configMap("dry2"),
      });
    },
  },
  {
    name: "status-subresource",
    async run(r): Promise<void> {
      const deployments = r.path("deployments", "apps/v1");
      const deployment = {
        apiVersion: "apps/v1",
        kind: "Deployment",
        metadata: { name: "web" },
        spec: {
          replicas: 1,
          selector: { matchLabels: { app: "web" } },
          template: {
            metadata: { labels: { app: "web" } },
            spec: { containers: [{ name: "web", image: "nginx:1.27" }] },
          },
        },
        status: { replicas: 7 },
      };
      await r.send("create ignores status", "POST", deployments, {
        body: deployment,
      });
      await r.send("main path ignores status", "PATCH", `${deployments}/web`, {
        body: { status: { replicas: 5 } },
        contentType: MERGE_PATCH,
      });
      await r.send("status path", "PATCH", `${deployments}/web/status`, {
        body: { status: { replicas: 3 } },
        contentType: MERGE_PATCH,
      });
      await r.send(
        "status ignores spec",
        "PATCH",
        `${deployments}/web/status`,
        {
          body: { spec: { replicas: 4 } },
          contentType: MERGE_PATCH,
        },
      );
      await r.send("spec bumps generation", "PATCH", `${deployments}/web`, {
        body: { spec: { replicas: 2 } },
        contentType: MERGE_PATCH,
      });
      await r.send("labels keep generation", "PATCH", `${deployments}/web`, {
        body: { metadata: { labels: { a: "b" } } },
        contentType: MERGE_PATCH,
      });
    },
  },
  {
    name: "leases",
    async run(r): Promise<void> {
      const leases = r.path("leases", "coordination.k8s.io/v1");
      const lease = {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: "op" },
        spec: {
          holderIdentity: "op-0_abcd",
          leaseDurationSeconds: 30,
          acquireTime: "2030-01-01T00:00:00.000000Z",
          renewTime: "2030-01-01T00:00:00.000000Z",
          leaseTransitions: 0,
        },
      };
      const made = await r.send("create", "POST", leases, { body: lease });
      await r.send("renew", "PUT", `${leases}/op`, {
        body: {
          ...lease,
          metadata: { name: "op", resourceVersion: rvOf(made.body) },
          spec: { ...lease.spec, renewTime: "2030-01-01T00:00:05.000000Z" },
        },
      });
      await r.send("stale renew", "PUT", `${leases}/op`, {
        body: {
          ...lease,
          metadata: { name: "op", resourceVersion: rvOf(made.body) },
        },
      });
      await r.send("bad duration", "POST", leases, {
        body: {
          ...lease,
          metadata: { name: "bad" },
          spec: { ...lease.spec, leaseDurationSeconds: 0 },
        },
      });
      await r.send("bad time", "POST", leases, {
        body: {
          ...lease,
          metadata: { name: "bad2" },
          spec: { ...lease.spec, renewTime: "yesterday" },
        },
      });
    },
  },
  {
    name: "events",
    async run(r): Promise<void> {
      const events = r.path("events");
      const event = {
        apiVersion: "v1",
        kind: "Event",
        metadata: { name: "web.1" },
        involvedObject: {
          apiVersion: "v1",
          kind: "ConfigMap",
          name: "web",
          namespace: r.namespace,
        },
        reason: "Created",
        message: "made it",
        type: "Normal",
        source: { component: "op" },
        firstTimestamp: "2030-01-01T00:00:00Z",
        lastTimestamp: "2030-01-01T00:00:00Z",
        count: 1,
      };
      await r.send("create", "POST", events, { body: event });
      await r.send("series patch", "PATCH", `${events}/web.1`, {
        body: { count: 2, lastTimestamp: "2030-01-01T00:01:00Z" },
        contentType: STRATEGIC_PATCH,
      });
      await r.send("wrong namespace", "POST", events, {
        body: {
          ...event,
          metadata: { name: "web.2" },
          involvedObject: { ...event.involvedObject, namespace: "other" },
        },
      });
      await r.send("bad type", "POST", events, {
        body: { ...event, metadata: { name: "web.3" }, type: "Odd" },
      });
      await r.send("long reason", "POST", events, {
        body: {
          ...event,
          metadata: { name: "web.4" },
          reason: "R".repeat(200),
        },
      });
    },
  },
  {
    name: "metadata-only",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, {
        body: configMap("m", { big: "x" }, { labels: { a: "b" } }),
      });
      const accept =
        "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1";
      await r.send("get", "GET", `${cms}/m`, { accept });
      await r.send("list", "GET", cms, {
        accept:
          "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1",
      });
      await r.send("not acceptable", "GET", `${cms}/m`, {
        accept: "application/json;as=Nonsense;g=meta.k8s.io;v=v1",
      });
    },
  },
  {
    name: "table",
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      await r.send("create", "POST", cms, { body: configMap("t", { a: "1" }) });
      const accept = "application/json;as=Table;g=meta.k8s.io;v=v1";
      await r.send("get", "GET", `${cms}/t`, { accept });
      await r.send("list", "GET", cms, { accept });
    },
  },
  {
    name: "garbage-collection",
    controllers: true,
    async run(r): Promise<void> {
      const cms = r.path("configmaps");
      const modes = ["Background", "Foreground", "Orphan"];
      for (const mode of modes) {
        const owner = await r.send(`create owner ${mode}`, "POST", cms, {
          body: configMap(`owner-${mode.toLowerCase()}`),
          quiet: true,
        });
        await r.send(`create child ${mode}`, "POST", cms, {
          body: configMap(`child-${mode.toLowerCase()}`, {}, {
            ownerReferences: [{
              apiVersion: "v1",
              kind: "ConfigMap",
              name: `owner-${mode.toLowerCase()}`,
              uid: uidOf(owner.body),
              blockOwnerDeletion: true,
            }],
          }),
          quiet: true,
        });
        await r.send(
          `delete owner ${mode}`,
          "DELETE",
          `${cms}/owner-${mode.toLowerCase()}`,
          {
            body: {
              kind: "DeleteOptions",
              apiVersion: "v1",
              propagationPolicy: mode,
            },
          },
        );
        const child = `${cms}/child-${mode.toLowerCase()}`;
        if (mode === "Orphan") {
          await r.until("the orphaned child", async () => {
            const { body } = await r.send("poll", "GET", child, {
              quiet: true,
            });
            const refs =
              (body as { metadata?: { ownerReferences?: unknown[] } })
                .metadata?.ownerReferences;
            return refs === undefined;
          });
          await r.send("orphan keeps the child", "GET", child);
        } else {
          await r.until(`the ${mode} child's deletion`, async () => {
            const { status } = await r.send("poll", "GET", child, {
              quiet: true,
            });
            return status === 404;
          });
          await r.until(`the ${mode} owner's deletion`, async () => {
            const { status } = await r.send(
              "poll",
              "GET",
              `${cms}/owner-${mode.toLowerCase()}`,
              { quiet: true },
            );
            return status === 404;
          });
          await r.send(`child gone ${mode}`, "GET", child);
        }
      }
    },
  },
  {
    name: "namespace-deletion",
    controllers: true,
    async run(r): Promise<void> {
      const name = `${r.namespace}-x`;
      await r.send("create", "POST", "/api/v1/namespaces", {
        body: { apiVersion: "v1", kind: "Namespace", metadata: { name } },
      });
      await r.send(
        "create inside",
        "POST",
        `/api/v1/namespaces/${name}/configmaps`,
        {
          body: configMap("inside"),
        },
      );
      await r.send("delete", "DELETE", `/api/v1/namespaces/${name}`);
      await r.send(
        "create while terminating",
        "POST",
        `/api/v1/namespaces/${name}/configmaps`,
        {
          body: configMap("late"),
        },
      );
      await r.until("the namespace's deletion", async () => {
        const { status } = await r.send(
          "poll",
          "GET",
          `/api/v1/namespaces/${name}`,
          { quiet: true },
        );
        return status === 404;
      });
      await r.send("gone", "GET", `/api/v1/namespaces/${name}`);
    },
  },
  {
    name: "custom-resources",
    async run(r): Promise<void> {
      // Cluster-scoped: the group carries the run's namespace to be unique.
      const group = `${r.namespace}.example.com`;
      const crd = `gadgets.${group}`;
      const crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
      const gadgets = `/apis/${group}/v1/namespaces/${r.namespace}/gadgets`;
      try {
        await r.send("create definition", "POST", crds, {
          body: {
            apiVersion: "apiextensions.k8s.io/v1",
            kind: "CustomResourceDefinition",
            metadata: { name: crd },
            spec: {
              group,
              names: { plural: "gadgets", singular: "gadget", kind: "Gadget" },
              scope: "Namespaced",
              versions: [{
                name: "v1",
                served: true,
                storage: true,
                subresources: { status: {} },
                schema: {
                  openAPIV3Schema: {
                    type: "object",
                    properties: {
                      spec: {
                        type: "object",
                        required: ["size"],
                        properties: {
                          size: { type: "integer", minimum: 1 },
                          color: { type: "string", default: "blue" },
                          tags: {
                            type: "array",
                            items: { type: "string" },
                            maxItems: 2,
                          },
                        },
                      },
                      status: {
                        type: "object",
                        properties: { ready: { type: "boolean" } },
                      },
                    },
                  },
                },
              }],
            },
          },
        });
        // The fake sets no conditions on a definition: nothing to wait for.
        if (r.target.name !== "fake") {
          await r.until("the definition's Established condition", async () => {
            const { body } = await r.send("poll", "GET", `${crds}/${crd}`, {
              quiet: true,
            });
            const conditions = (body as {
              status?: { conditions?: { type: string; status: string }[] };
            }).status?.conditions ?? [];
            return conditions.some((c) =>
              c.type === "Established" && c.status === "True"
            );
          });
        }
        const gadget = (spec: unknown, extra: object = {}): unknown => ({
          apiVersion: `${group}/v1`,
          kind: "Gadget",
          metadata: { name: "g" },
          spec,
          ...extra,
        });
        await r.send("create pruned and defaulted", "POST", gadgets, {
          body: gadget({ size: 2, extra: "dropped" }, {
            status: { ready: true },
          }),
        });
        await r.send("invalid value", "POST", gadgets, {
          body: {
            ...gadget({ size: 0, tags: ["a", "b", "c"] }) as object,
            metadata: { name: "bad" },
          },
        });
        await r.send("wrong type", "POST", gadgets, {
          body: {
            ...gadget({ size: "big" }) as object,
            metadata: { name: "bad2" },
          },
        });
        await r.send("missing required", "POST", gadgets, {
          body: {
            ...gadget({ color: "red" }) as object,
            metadata: { name: "bad3" },
          },
        });
        await r.send(
          "strict field validation",
          "POST",
          `${gadgets}?fieldValidation=Strict`,
          {
            body: {
              ...gadget({ size: 1, nope: 1 }) as object,
              metadata: { name: "strict" },
            },
          },
        );
        await r.send(
          "status through the main path is ignored",
          "PATCH",
          `${gadgets}/g`,
          {
            body: { status: { ready: true } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send("status through /status", "PATCH", `${gadgets}/g/status`, {
          body: { status: { ready: true } },
          contentType: MERGE_PATCH,
        });
        await r.send("strategic merge is refused", "PATCH", `${gadgets}/g`, {
          body: { spec: { size: 3 } },
          contentType: STRATEGIC_PATCH,
        });
      } finally {
        await r.send("cleanup", "DELETE", `${crds}/${crd}`, { quiet: true });
      }
    },
  },
];
