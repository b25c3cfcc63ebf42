/**
 * Writes: server-side apply, dry run, the status subresource, Leases and Events.
 *
 * @module
 */

import {
  APPLY_PATCH,
  configMap,
  MERGE_PATCH,
  rvOf,
  type Scenario,
  STRATEGIC_PATCH,
} from "./_common.ts";

/** The scenarios of this area, in order. */
export const WRITES: readonly Scenario[] = [
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
];
