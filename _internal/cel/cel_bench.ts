// What a CRD validation rule costs per object: compiling once, then
// converting the object and evaluating, as the fake does on each write.
import { compile, schemaType } from "./mod.ts";

const spec = schemaType({
  type: "object",
  properties: {
    replicas: { type: "integer" },
    maxReplicas: { type: "integer" },
    image: { type: "string" },
    ports: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, port: { type: "integer" } },
      },
    },
    labels: { type: "object", additionalProperties: { type: "string" } },
  },
});
const value = {
  replicas: 3,
  maxReplicas: 5,
  image: "registry.example/app:1.2.3",
  ports: [{ name: "http", port: 8080 }, { name: "metrics", port: 9090 }],
  labels: { app: "demo", tier: "web" },
};
const typical = compile(
  "self.replicas <= self.maxReplicas && self.ports.all(p, p.port > 1024) && self.image.matches('^[a-z0-9./:-]+$')",
  { variables: { self: spec } },
);
const transition = compile("self.image == oldSelf.image || self.replicas > 0", {
  variables: { self: spec, oldSelf: spec },
});

Deno.bench("compile a typical rule", () => {
  compile("self.replicas <= self.maxReplicas", { variables: { self: spec } });
});
Deno.bench("evaluate a typical rule on one object", () => {
  typical.run({ self: value });
});
Deno.bench("evaluate a transition rule on one update", () => {
  transition.run({ self: value, oldSelf: value });
});
