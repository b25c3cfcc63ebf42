/**
 * CustomResourceDefinition validation rules (`x-kubernetes-validations`,
 * CEL) on every write path, the definitions the API server refuses for
 * their rules, and validation ratcheting on updates.
 *
 * Each refused write fails rules on one chain of schema nodes only: the
 * API server visits an object's properties in Go's random map order, so
 * failures on sibling fields would be recorded in no stable order.
 *
 * @module
 */

import type { Run } from "../_target.ts";
import {
  APPLY_PATCH,
  JSON_PATCH,
  MERGE_PATCH,
  rvOf,
  type Scenario,
} from "./_common.ts";

const CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

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

/** A definition of `plural` in `group` with one version `v1`. */
function definition(
  group: string,
  plural: string,
  kind: string,
  schema: unknown,
  subresources: unknown = { status: {} },
): Record<string, unknown> {
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      names: { plural, kind },
      scope: "Namespaced",
      versions: [{
        name: "v1",
        served: true,
        storage: true,
        subresources,
        schema: { openAPIV3Schema: schema },
      }],
    },
  };
}

/** The schema of the rules scenario's widgets. */
const WIDGET_SCHEMA = {
  type: "object",
  "x-kubernetes-validations": [{
    rule: "self.metadata.name.size() <= 12",
    messageExpression: "'name ' + self.metadata.name + ' is too long'",
  }],
  properties: {
    spec: {
      type: "object",
      "x-kubernetes-validations": [
        {
          rule: "!has(self.replicas) || self.replicas <= 10",
          message: "at most 10 replicas",
          fieldPath: ".replicas",
          reason: "FieldValueForbidden",
        },
        {
          rule: "!has(self.math) || self.math.a < 1000",
          messageExpression: "'math ' + self.math.label + ' is too big'",
          message: "a is below 1000",
        },
      ],
      properties: {
        replicas: { type: "integer" },
        mode: {
          type: "string",
          "x-kubernetes-validations": [{
            rule: "self in ['fast', 'slow']",
            messageExpression: "'mode ' + self + ' is not known'",
          }],
        },
        name: {
          type: "string",
          "x-kubernetes-validations": [{
            rule: "self == oldSelf",
            message: "name is immutable",
          }],
        },
        size: {
          type: "integer",
          "x-kubernetes-validations": [{
            rule: "oldSelf.hasValue() ? self >= oldSelf.value() : self <= 5",
            message: "size starts at 5 at most and never shrinks",
            optionalOldSelf: true,
          }],
        },
        items: {
          type: "array",
          maxItems: 10,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          items: {
            type: "object",
            required: ["name"],
            "x-kubernetes-validations": [{
              rule: "!has(self.value) || self.value >= 0",
              messageExpression: "'item ' + self.name + ' is negative'",
              fieldPath: ".value",
              reason: "FieldValueRequired",
            }],
            properties: {
              name: { type: "string", maxLength: 10 },
              value: { type: "integer" },
            },
          },
        },
        labels: {
          type: "object",
          maxProperties: 10,
          additionalProperties: { type: "string", maxLength: 20 },
          "x-kubernetes-validations": [{
            rule: "self.all(k, k.size() < 8)",
            message: "label keys are short",
          }],
        },
        math: {
          type: "object",
          "x-kubernetes-validations": [{
            rule: "self.a / self.b >= 0",
            message: "a over b is not negative",
          }],
          properties: {
            a: { type: "integer" },
            b: { type: "integer" },
            label: { type: "string", maxLength: 10 },
          },
        },
        bounded: {
          type: "integer",
          maximum: 100,
          "x-kubernetes-validations": [{
            rule: "self != 50",
            message: "not 50",
          }],
        },
        level: {
          type: "integer",
          "x-kubernetes-validations": [{
            rule: "self > 0",
            message: "level is positive",
          }],
        },
        batches: {
          type: "array",
          maxItems: 20,
          items: {
            type: "object",
            properties: {
              letters: {
                type: "array",
                maxItems: 44,
                items: { type: "string", maxLength: 1 },
              },
            },
            // Each under the per-rule limits, together over the budget of
            // one object's rules.
            "x-kubernetes-validations": ["x", "y", "z"].map((letter) => ({
              rule:
                `self.letters.all(a, self.letters.all(b, self.letters.all(c, a != '${letter}')))`,
              message: `no ${letter} in a batch`,
            })),
          },
        },
        letters: {
          type: "array",
          maxItems: 100,
          items: { type: "string", maxLength: 1 },
          "x-kubernetes-validations": [{
            rule: "self.all(a, self.all(b, self.all(c, a != 'z')))",
            message: "no z",
          }],
        },
      },
    },
    status: {
      type: "object",
      "x-kubernetes-validations": [{
        rule: "!has(self.ready) || !self.ready || has(self.replicas)",
        message: "a ready widget reports its replicas",
        reason: "FieldValueRequired",
        fieldPath: ".replicas",
      }],
      properties: {
        ready: { type: "boolean" },
        replicas: { type: "integer" },
        selector: { type: "string" },
      },
    },
  },
};

/** The ratcheting scenario's schema, before and after it is tightened. */
function gizmoSchema(tight: boolean): unknown {
  const when = (extra: object): object => tight ? extra : {};
  return {
    type: "object",
    properties: {
      spec: {
        type: "object",
        ...when({
          "x-kubernetes-validations": [{
            rule: "self.owner != 'nobody'",
            message: "somebody owns it",
          }],
        }),
        properties: {
          name: { type: "string", ...when({ maxLength: 5 }) },
          kind: { type: "string", ...when({ enum: ["a", "b"] }) },
          count: {
            type: "integer",
            ...when({
              "x-kubernetes-validations": [{
                rule: "self <= 100",
                message: "count is at most 100",
              }],
            }),
          },
          owner: { type: "string" },
          note: { type: "string" },
          ports: {
            type: "array",
            "x-kubernetes-list-type": "map",
            "x-kubernetes-list-map-keys": ["name"],
            items: {
              type: "object",
              required: ["name"],
              properties: {
                name: { type: "string" },
                port: { type: "integer", ...when({ maximum: 1000 }) },
              },
            },
          },
          tags: {
            type: "array",
            items: { type: "string", ...when({ maxLength: 3 }) },
          },
        },
      },
      status: {
        type: "object",
        properties: {
          phase: { type: "string", ...when({ enum: ["Ready"] }) },
          note: { type: "string" },
        },
      },
    },
  };
}

/** The scenarios of this area, in order. */
export const VALIDATION_RULES: readonly Scenario[] = [
  {
    name: "validation-rules",
    async run(r): Promise<void> {
      const group = `${r.namespace}.example.com`;
      const crd = `widgets.${group}`;
      const widgets = `/apis/${group}/v1/namespaces/${r.namespace}/widgets`;
      const widget = (name: string, spec: object): unknown => ({
        apiVersion: `${group}/v1`,
        kind: "Widget",
        metadata: { name },
        spec,
      });
      try {
        const made = await r.send(
          "create definition",
          "POST",
          CRDS,
          {
            body: definition(group, "widgets", "Widget", WIDGET_SCHEMA, {
              status: {},
              scale: {
                specReplicasPath: ".spec.replicas",
                statusReplicasPath: ".status.replicas",
                labelSelectorPath: ".status.selector",
              },
            }),
          },
        );
        if (made.status !== 201) {
          throw new Error(
            `The definition was refused: ${JSON.stringify(made.body)}`,
          );
        }
        await established(r, `${CRDS}/${crd}`);
        await r.send("create passes every rule", "POST", widgets, {
          body: widget("w1", {
            replicas: 2,
            mode: "fast",
            name: "first",
            size: 3,
            items: [{ name: "a", value: 1 }],
            labels: { app: "w" },
            math: { a: 4, b: 2 },
            letters: ["a", "b"],
          }),
        });
        await r.send("create refused by a rule", "POST", widgets, {
          body: widget("w2", { replicas: 20 }),
        });
        await r.send("create refused by a root rule", "POST", widgets, {
          body: widget("a-very-long-name", { replicas: 1 }),
        });
        await r.send("messageExpression", "POST", widgets, {
          body: widget("w3", { mode: "sideways" }),
        });
        await r.send(
          "messageExpression that fails falls back to message",
          "POST",
          widgets,
          { body: widget("w4", { math: { a: 2000 } }) },
        );
        await r.send("a rule on list items", "POST", widgets, {
          body: widget("w5", { items: [{ name: "x", value: -1 }] }),
        });
        await r.send("a rule over map keys", "POST", widgets, {
          body: widget("w6", { labels: { "much-too-long": "v" } }),
        });
        await r.send("optionalOldSelf on create", "POST", widgets, {
          body: widget("w7", { size: 6 }),
        });
        await r.send("a rule that errors at runtime", "POST", widgets, {
          body: widget("w8", { math: { a: 1, b: 0 } }),
        });
        await r.send("a rule over the runtime cost limit", "POST", widgets, {
          body: widget("w9", { letters: Array(100).fill("a") }),
        });
        await r.send(
          "rules over the cost budget of an object",
          "POST",
          widgets,
          {
            body: widget("w15", {
              batches: Array(20).fill({ letters: Array(44).fill("a") }),
            }),
          },
        );
        await r.send("rules fail at three levels", "POST", widgets, {
          body: widget("a-very-long-name", { replicas: 20, level: 0 }),
        });
        await r.send("two rules fail on one node", "POST", widgets, {
          body: widget("w14", {
            replicas: 20,
            math: { a: 2000, b: 1, label: "big" },
          }),
        });
        await r.send("schema error and rule error", "POST", widgets, {
          body: widget("w10", { bounded: 200, level: 0 }),
        });
        await r.send("schema error on the same field", "POST", widgets, {
          body: widget("w11", { bounded: 200 }),
        });
        await r.send("a type error skips the rules", "POST", widgets, {
          body: widget("w12", { bounded: "many", level: 0 }),
        });
        const w1 = await r.send("read w1", "GET", `${widgets}/w1`, {
          quiet: true,
        });
        await r.send("update refused", "PUT", `${widgets}/w1`, {
          body: {
            ...widget("w1", {
              replicas: 11,
              mode: "fast",
              name: "first",
              size: 3,
            }) as object,
            metadata: { name: "w1", resourceVersion: rvOf(w1.body) },
          },
        });
        await r.send("a transition rule refuses", "PATCH", `${widgets}/w1`, {
          body: { spec: { name: "second" } },
          contentType: MERGE_PATCH,
        });
        await r.send(
          "optionalOldSelf refuses a shrink",
          "PATCH",
          `${widgets}/w1`,
          {
            body: { spec: { size: 2 } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "optionalOldSelf takes a growth",
          "PATCH",
          `${widgets}/w1`,
          {
            body: { spec: { size: 9 } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send("merge patch refused", "PATCH", `${widgets}/w1`, {
          body: { spec: { replicas: 12 } },
          contentType: MERGE_PATCH,
        });
        await r.send("json patch refused", "PATCH", `${widgets}/w1`, {
          body: [{ op: "replace", path: "/spec/mode", value: "slowest" }],
          contentType: JSON_PATCH,
        });
        await r.send(
          "apply refused",
          "PATCH",
          `${widgets}/w1?fieldManager=tester&force=true`,
          {
            body: {
              apiVersion: `${group}/v1`,
              kind: "Widget",
              metadata: { name: "w1" },
              spec: { replicas: 13 },
            },
            contentType: APPLY_PATCH,
          },
        );
        await r.send(
          "apply that creates, refused",
          "PATCH",
          `${widgets}/w13?fieldManager=tester`,
          {
            body: {
              apiVersion: `${group}/v1`,
              kind: "Widget",
              metadata: { name: "w13" },
              spec: { replicas: 14 },
            },
            contentType: APPLY_PATCH,
          },
        );
        await r.send("status refused", "PATCH", `${widgets}/w1/status`, {
          body: { status: { ready: true } },
          contentType: MERGE_PATCH,
        });
        await r.send("status accepted", "PATCH", `${widgets}/w1/status`, {
          body: { status: { ready: true, replicas: 2 } },
          contentType: MERGE_PATCH,
        });
        await r.send("scale refused", "PATCH", `${widgets}/w1/scale`, {
          body: { spec: { replicas: 11 } },
          contentType: MERGE_PATCH,
        });
        await r.send("scale accepted", "PATCH", `${widgets}/w1/scale`, {
          body: { spec: { replicas: 4 } },
          contentType: MERGE_PATCH,
        });
        await r.send("the object after", "GET", `${widgets}/w1`);
      } finally {
        await r.send("cleanup", "DELETE", `${CRDS}/${crd}`, { quiet: true });
      }
    },
  },
  {
    name: "validation-rules-definitions",
    async run(r): Promise<void> {
      const group = `${r.namespace}.example.com`;
      const spec = (
        property: Record<string, unknown>,
        rules: Record<string, unknown>[],
      ): unknown => ({
        type: "object",
        properties: {
          spec: {
            type: "object",
            properties: property,
            "x-kubernetes-validations": rules,
          },
        },
      });
      const refused = async (
        step: string,
        plural: string,
        schema: unknown,
      ): Promise<void> => {
        const kind = plural[0]!.toUpperCase() + plural.slice(1, -1);
        try {
          await r.send(step, "POST", CRDS, {
            body: definition(group, plural, kind, schema),
          });
        } finally {
          await r.send("cleanup", "DELETE", `${CRDS}/${plural}.${group}`, {
            quiet: true,
          });
        }
      };
      const count = { count: { type: "integer" } };
      await refused(
        "a syntax error",
        "syntaxes",
        spec(count, [{ rule: "self.count >" }]),
      );
      await refused(
        "no such overload",
        "overloads",
        spec(count, [{ rule: "self.count == 'one'" }]),
      );
      await refused(
        "no such field",
        "fields",
        spec(count, [{ rule: "self.nope > 1" }]),
      );
      await refused(
        "a rule that is not a boolean",
        "booleans",
        spec(count, [{ rule: "self.count + 1" }]),
      );
      await refused(
        "a messageExpression that is not a string",
        "messages",
        spec(count, [{ rule: "true", messageExpression: "self.count" }]),
      );
      await refused(
        "a bad fieldPath",
        "paths",
        spec(count, [{ rule: "true", fieldPath: ".nope" }]),
      );
      await refused(
        "a message with a line break",
        "breaks",
        spec(count, [{ rule: "true", message: "one\ntwo" }]),
      );
      await refused(
        "an empty rule",
        "empties",
        spec(count, [{ rule: "" }]),
      );
      await refused(
        "oldSelf under an atomic list",
        "atomics",
        {
          type: "object",
          properties: {
            spec: {
              type: "object",
              properties: {
                things: {
                  type: "array",
                  items: {
                    type: "object",
                    properties: { a: { type: "integer" } },
                    "x-kubernetes-validations": [{ rule: "self == oldSelf" }],
                  },
                },
              },
            },
          },
        },
      );
      await refused(
        "a rule over the estimated cost limit",
        "costs",
        spec(
          { words: { type: "array", items: { type: "string" } } },
          [{ rule: "self.words.all(x, self.words.all(y, x == y))" }],
        ),
      );
      await refused(
        "two bad rules",
        "pairs",
        spec(count, [{ rule: "self.count >" }, {
          rule: "self.count == 'one'",
        }]),
      );
    },
  },
  {
    name: "validation-ratcheting",
    async run(r): Promise<void> {
      const group = `${r.namespace}.example.com`;
      const crd = `gizmos.${group}`;
      const gizmos = `/apis/${group}/v1/namespaces/${r.namespace}/gizmos`;
      const loose = gizmoSchema(false);
      const tight = gizmoSchema(true);
      const gizmo = (spec: object): unknown => ({
        apiVersion: `${group}/v1`,
        kind: "Gizmo",
        metadata: { name: "old" },
        spec,
      });
      const oldSpec = {
        name: "much-too-long",
        kind: "z",
        count: 500,
        owner: "nobody",
        note: "one",
        ports: [{ name: "a", port: 5000 }, { name: "b", port: 80 }],
        tags: ["long-tag", "ok"],
      };
      try {
        await r.send("create definition", "POST", CRDS, {
          body: definition(group, "gizmos", "Gizmo", loose),
          quiet: true,
        });
        await established(r, `${CRDS}/${crd}`);
        await r.send("create under the loose schema", "POST", gizmos, {
          body: gizmo(oldSpec),
        });
        await r.send(
          "status under the loose schema",
          "PATCH",
          `${gizmos}/old/status`,
          {
            body: { status: { phase: "Broken", note: "x" } },
            contentType: MERGE_PATCH,
          },
        );
        const { body: live } = await r.send(
          "read definition",
          "GET",
          `${CRDS}/${crd}`,
          { quiet: true },
        );
        const next = structuredClone(live) as {
          spec: { versions: { schema: { openAPIV3Schema: unknown } }[] };
        };
        next.spec.versions[0]!.schema.openAPIV3Schema = tight;
        await r.send("tighten the schema", "PUT", `${CRDS}/${crd}`, {
          body: next,
          quiet: true,
        });
        // The API server serves a changed schema a moment after the write.
        await r.until("the tightened schema", async () => {
          const { status } = await r.send(
            "poll",
            "POST",
            `${gizmos}?dryRun=All`,
            {
              body: {
                ...gizmo({ name: "much-too-long" }) as object,
                metadata: { name: "probe" },
              },
              quiet: true,
            },
          );
          return status === 422;
        });
        await r.send("a new object gets every check", "POST", gizmos, {
          body: {
            ...gizmo(oldSpec) as object,
            metadata: { name: "new" },
          },
        });
        await r.send(
          "metadata change keeps invalid values",
          "PATCH",
          `${gizmos}/old`,
          {
            body: { metadata: { labels: { touched: "yes" } } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "a changed object fails its own rule",
          "PATCH",
          `${gizmos}/old`,
          {
            body: { spec: { note: "two" } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "unchanged fields are ratcheted",
          "PATCH",
          `${gizmos}/old`,
          {
            body: { spec: { note: "two", owner: "me" } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "a changed value is checked (maxLength)",
          "PATCH",
          `${gizmos}/old`,
          {
            body: { spec: { name: "still-too-long" } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "a changed value is checked (enum)",
          "PATCH",
          `${gizmos}/old`,
          {
            body: { spec: { kind: "y" } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "a changed value is checked (rule)",
          "PATCH",
          `${gizmos}/old`,
          {
            body: { spec: { count: 400 } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "list-map items correlate by key",
          "PATCH",
          `${gizmos}/old`,
          {
            body: {
              spec: {
                ports: [
                  { name: "c", port: 90 },
                  { name: "b", port: 80 },
                  { name: "a", port: 5000 },
                ],
              },
            },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "a changed list-map item is checked",
          "PATCH",
          `${gizmos}/old`,
          {
            body: {
              spec: {
                ports: [
                  { name: "c", port: 90 },
                  { name: "b", port: 80 },
                  { name: "a", port: 6000 },
                ],
              },
            },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "atomic list items do not correlate",
          "PATCH",
          `${gizmos}/old`,
          {
            body: { spec: { tags: ["ok", "long-tag"] } },
            contentType: MERGE_PATCH,
          },
        );
        const old = await r.send("read old", "GET", `${gizmos}/old`, {
          quiet: true,
        });
        await r.send("update keeping old values", "PUT", `${gizmos}/old`, {
          body: {
            ...gizmo({
              ...oldSpec,
              ports: [
                { name: "c", port: 90 },
                { name: "b", port: 80 },
                { name: "a", port: 5000 },
              ],
              owner: "me",
              note: "three",
            }) as object,
            metadata: { name: "old", resourceVersion: rvOf(old.body) },
          },
        });
        await r.send(
          "apply keeping old values",
          "PATCH",
          `${gizmos}/old?fieldManager=tester&force=true`,
          {
            body: gizmo({ name: "much-too-long", note: "four" }),
            contentType: APPLY_PATCH,
          },
        );
        await r.send(
          "status keeps an old value",
          "PATCH",
          `${gizmos}/old/status`,
          {
            body: { status: { note: "y" } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send(
          "status changes an old value",
          "PATCH",
          `${gizmos}/old/status`,
          {
            body: { status: { phase: "Gone" } },
            contentType: MERGE_PATCH,
          },
        );
        await r.send("the object after", "GET", `${gizmos}/old`);
      } finally {
        await r.send("cleanup", "DELETE", `${CRDS}/${crd}`, { quiet: true });
      }
    },
  },
];
