/**
 * Custom resources served from a CustomResourceDefinition.
 *
 * @module
 */

import type { Run } from "../_target.ts";
import {
  APPLY_PATCH,
  MERGE_PATCH,
  type Scenario,
  STRATEGIC_PATCH,
} from "./_common.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";
const TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io";

/** Waits (quietly) until the definition at `path` is Established. */
async function established(r: Run, path: string): Promise<void> {
  await r.until("the definition's Established condition", async () => {
    const { body } = await r.send("poll", "GET", path, { quiet: true });
    const conditions = (body as {
      status?: { conditions?: { type: string; status: string }[] | null };
    }).status?.conditions ?? [];
    return conditions.some((c) =>
      c.type === "Established" && c.status === "True"
    );
  });
}

/** Waits (quietly) until `path` answers 404. */
async function gone(r: Run, path: string): Promise<void> {
  await r.until(`${path} to go`, async () => {
    const { status } = await r.send("poll", "GET", path, { quiet: true });
    return status === 404;
  });
}

/** The scenarios of this area, in order. */
export const CUSTOM_RESOURCES: readonly Scenario[] = [
  {
    name: "custom-resources",
    async run(r): Promise<void> {
      // Cluster-scoped: the group carries the run's namespace to be unique.
      const group = `${r.namespace}.example.com`;
      const crd = `gadgets.${group}`;
      const crds = CRDS;
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
        await established(r, `${crds}/${crd}`);
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
  {
    name: "custom-resource-versions",
    async run(r): Promise<void> {
      const group = `${r.namespace}.example.com`;
      const crd = `sprockets.${group}`;
      const base = `/apis/${group}`;
      const at = (version: string): string =>
        `${base}/${version}/namespaces/${r.namespace}/sprockets`;
      const schema = (extra: object = {}): unknown => ({
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: {
                size: { type: "integer" },
                color: { type: "string", default: "blue" },
                options: {
                  type: "object",
                  properties: { retries: { type: "integer", default: 3 } },
                },
                ports: {
                  type: "array",
                  "x-kubernetes-list-type": "map",
                  "x-kubernetes-list-map-keys": ["name"],
                  items: {
                    type: "object",
                    required: ["name"],
                    properties: {
                      name: { type: "string" },
                      port: { type: "integer" },
                    },
                  },
                },
                ...extra,
              },
            },
            status: {
              type: "object",
              properties: { ready: { type: "boolean" } },
            },
          },
        },
      });
      const definition = (versions: unknown[]): unknown => ({
        apiVersion: "apiextensions.k8s.io/v1",
        kind: "CustomResourceDefinition",
        metadata: { name: crd },
        spec: {
          group,
          names: { plural: "sprockets", kind: "Sprocket" },
          scope: "Namespaced",
          versions,
        },
      });
      try {
        await r.send("wrong name", "POST", CRDS, {
          body: {
            ...definition([{
              name: "v1",
              served: true,
              storage: true,
              schema: schema(),
            }]) as object,
            metadata: { name: `gears.${group}` },
          },
        });
        await r.send("not structural", "POST", CRDS, {
          body: definition([{
            name: "v1",
            served: true,
            storage: true,
            schema: schema({ loose: { description: "no type" } }),
          }]),
        });
        await r.send("create definition", "POST", CRDS, {
          body: definition([
            {
              name: "v1beta1",
              served: true,
              storage: false,
              subresources: { status: {} },
              schema: schema(),
            },
            {
              name: "v1",
              served: true,
              storage: true,
              subresources: { status: {} },
              additionalPrinterColumns: [
                { name: "Size", type: "integer", jsonPath: ".spec.size" },
                { name: "Color", type: "string", jsonPath: ".spec.color" },
                { name: "Ready", type: "boolean", jsonPath: ".status.ready" },
              ],
              schema: schema(),
            },
          ]),
        });
        await established(r, `${CRDS}/${crd}`);
        await r.send("get established definition", "GET", `${CRDS}/${crd}`);
        // Discovery lists a new version a moment after Established on the
        // real server: wait for both, so the recorded step is stable.
        await r.until("discovery of both versions", async () => {
          const { body } = await r.send("poll", "GET", base, { quiet: true });
          return (body as { versions?: unknown[] }).versions?.length === 2;
        });
        await r.send("group discovery", "GET", base);
        await r.send("create through v1beta1", "POST", at("v1beta1"), {
          body: {
            apiVersion: `${group}/v1beta1`,
            kind: "Sprocket",
            metadata: { name: "old" },
            spec: { size: 1 },
          },
        });
        await r.send("read through v1", "GET", `${at("v1")}/old`);
        await r.send("list through v1beta1", "GET", at("v1beta1"));
        await r.send("nested default where parent exists", "POST", at("v1"), {
          body: {
            apiVersion: `${group}/v1`,
            kind: "Sprocket",
            metadata: { name: "nested" },
            spec: { size: 2, options: {} },
          },
        });
        await r.send("table", "GET", at("v1"), { accept: TABLE });
        await r.send("status ignores spec", "PATCH", `${at("v1")}/old/status`, {
          body: { spec: { size: 9 }, status: { ready: true } },
          contentType: MERGE_PATCH,
        });
        await r.send("spec bumps generation", "PATCH", `${at("v1")}/old`, {
          body: { spec: { size: 5 }, status: { ready: false } },
          contentType: MERGE_PATCH,
        });
        await r.send(
          "apply ports a",
          "PATCH",
          `${at("v1")}/ported?fieldManager=a`,
          {
            body: {
              apiVersion: `${group}/v1`,
              kind: "Sprocket",
              metadata: { name: "ported" },
              spec: { ports: [{ name: "http", port: 80 }] },
            },
            contentType: APPLY_PATCH,
          },
        );
        await r.send(
          "apply ports b",
          "PATCH",
          `${at("v1")}/ported?fieldManager=b`,
          {
            body: {
              apiVersion: `${group}/v1`,
              kind: "Sprocket",
              metadata: { name: "ported" },
              spec: { ports: [{ name: "https", port: 443 }] },
            },
            contentType: APPLY_PATCH,
          },
        );
        await r.send("delete definition", "DELETE", `${CRDS}/${crd}`, {
          quiet: true,
        });
        await gone(r, `${CRDS}/${crd}`);
        await r.send("objects gone with it", "GET", at("v1"));
      } finally {
        await r.send("cleanup", "DELETE", `${CRDS}/${crd}`, { quiet: true });
      }
    },
  },
  {
    name: "custom-resource-parts",
    async run(r): Promise<void> {
      const group = `${r.namespace}.example.com`;
      const crd = `doohickeys.${group}`;
      const base = `/apis/${group}`;
      const at = (version: string): string =>
        `${base}/${version}/namespaces/${r.namespace}/doohickeys`;
      const schema = (color: string, extra: object = {}): unknown => ({
        openAPIV3Schema: {
          type: "object",
          properties: {
            spec: {
              type: "object",
              "x-kubernetes-validations": [{
                rule: "!has(self.replicas) || self.replicas <= 10",
                message: "at most 10 replicas",
              }],
              properties: {
                replicas: { type: "integer" },
                color: { type: "string", default: color },
                ...extra,
              },
            },
            status: {
              type: "object",
              properties: {
                replicas: { type: "integer" },
                selector: { type: "string" },
              },
            },
          },
        },
      });
      const object = (
        version: string,
        name: string,
        spec: object,
      ): unknown => ({
        apiVersion: `${group}/${version}`,
        kind: "Doohickey",
        metadata: { name },
        spec,
      });
      try {
        await r.send("create definition", "POST", CRDS, {
          body: {
            apiVersion: "apiextensions.k8s.io/v1",
            kind: "CustomResourceDefinition",
            metadata: { name: crd },
            spec: {
              group,
              names: {
                plural: "doohickeys",
                kind: "Doohickey",
                categories: ["gizmos"],
              },
              scope: "Namespaced",
              versions: [
                {
                  name: "v1",
                  served: true,
                  storage: true,
                  subresources: {
                    status: {},
                    scale: {
                      specReplicasPath: ".spec.replicas",
                      statusReplicasPath: ".status.replicas",
                      labelSelectorPath: ".status.selector",
                    },
                  },
                  selectableFields: [{ jsonPath: ".spec.color" }],
                  schema: schema("blue"),
                },
                {
                  name: "v1beta1",
                  served: true,
                  storage: false,
                  deprecated: true,
                  schema: schema("red", { legacy: { type: "string" } }),
                },
                {
                  name: "v1alpha1",
                  served: true,
                  storage: false,
                  deprecated: true,
                  deprecationWarning: "v1alpha1 doohickeys are going away",
                  schema: schema("green"),
                },
              ],
            },
          },
        });
        await established(r, `${CRDS}/${crd}`);
        await r.send("create through v1", "POST", at("v1"), {
          body: object("v1", "d1", { replicas: 2 }),
        });
        await r.send(
          "create through deprecated v1beta1",
          "POST",
          at("v1beta1"),
          {
            body: object("v1beta1", "d2", { replicas: 1, legacy: "kept" }),
          },
        );
        await r.send("v1 prunes the v1beta1 field", "POST", at("v1"), {
          body: object("v1", "d3", { color: "red", legacy: "dropped" }),
        });
        await r.send(
          "get through deprecated v1alpha1",
          "GET",
          `${at("v1alpha1")}/d2`,
        );
        await r.send("list through deprecated v1alpha1", "GET", at("v1alpha1"));
        await r.send(
          "select by a selectable field",
          "GET",
          `${at("v1")}?fieldSelector=spec.color%3Dred`,
        );
        await r.send(
          "select by a selectable field, negated",
          "GET",
          `${at("v1")}?fieldSelector=spec.color!%3Dred`,
        );
        await r.send(
          "select by name and a selectable field",
          "GET",
          `${at("v1")}?fieldSelector=metadata.name%3Dd2,spec.color%3Dred`,
        );
        await r.send(
          "select by a field that is not selectable",
          "GET",
          `${at("v1")}?fieldSelector=spec.replicas%3D2`,
        );
        await r.send(
          "select in a version without selectable fields",
          "GET",
          `${at("v1beta1")}?fieldSelector=spec.color%3Dred`,
        );
        await r.send("get scale", "GET", `${at("v1")}/d1/scale`);
        await r.send("put scale", "PUT", `${at("v1")}/d1/scale`, {
          body: {
            apiVersion: "autoscaling/v1",
            kind: "Scale",
            metadata: { name: "d1", namespace: r.namespace },
            spec: { replicas: 5 },
          },
        });
        await r.send("patch scale", "PATCH", `${at("v1")}/d1/scale`, {
          body: { spec: { replicas: 3 } },
          contentType: MERGE_PATCH,
        });
        await r.send(
          "the object has the scale's replicas",
          "GET",
          `${at("v1")}/d1`,
        );
        await r.send(
          "status replicas and selector",
          "PATCH",
          `${at("v1")}/d1/status`,
          {
            body: { status: { replicas: 3, selector: "app=d1" } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send("get scale with status", "GET", `${at("v1")}/d1/scale`);
        await r.send(
          "scale of an object without replicas",
          "GET",
          `${at("v1")}/d3/scale`,
        );
        await r.send(
          "scale of a missing object",
          "GET",
          `${at("v1")}/nope/scale`,
        );
        await r.send("no scale in v1beta1", "GET", `${at("v1beta1")}/d1/scale`);
        await r.send("a validation rule refuses", "POST", at("v1"), {
          body: object("v1", "many", { replicas: 20 }),
        });
        await r.send(
          "a scale beyond a validation rule",
          "PATCH",
          `${at("v1")}/d1/scale`,
          {
            body: { spec: { replicas: 11 } },
            contentType: MERGE_PATCH,
          },
        );
      } finally {
        await r.send("cleanup", "DELETE", `${CRDS}/${crd}`, { quiet: true });
      }
    },
  },
];
