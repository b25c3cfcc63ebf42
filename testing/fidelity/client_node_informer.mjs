// Runs the informer of @kubernetes/client-node against a server and prints
// what it sees as JSON lines on stdout, for fidelity_test.ts.
//
// Environment: SERVER (https://127.0.0.1:PORT), CA_PEM (the server's CA),
// TOKEN (bearer token), API_VERSION (e.g. "v1" or "example.com/v1"), KIND,
// NAMESPACE, and optionally LABEL_SELECTOR.
//
// Lines: {"event":"runtime","node","deno"} first, {"event":"connect"}, {"event":"ready","names":[...]} once the first
// list is cached, {"event":"add"|"update"|"delete","name","resourceVersion",
// "data"?,"status"?}, {"event":"error","message","code"?}.
// deno-lint-ignore-file no-console
import process from "node:process";

// Deno runs a script itself when asked to spawn a `node` it cannot find, so
// say which runtime this is: the test fails unless it is Node.
console.log(JSON.stringify({
  event: "runtime",
  node: process.version,
  deno: "Deno" in globalThis,
}));

// A computed specifier keeps `deno check` from resolving this npm package,
// which only Node (through testing/fidelity/node_modules) provides.
const clientNode = "@kubernetes/client-node";
const k8s = await import(clientNode);

const env = process.env;
for (const name of ["SERVER", "CA_PEM", "API_VERSION", "KIND", "NAMESPACE"]) {
  if (!env[name]) {
    console.error(`Missing environment variable ${name}`);
    process.exit(2);
  }
}

const kc = new k8s.KubeConfig();
kc.loadFromOptions({
  clusters: [{
    name: "fake",
    server: env.SERVER,
    caData: Buffer.from(env.CA_PEM).toString("base64"),
    skipTLSVerify: false,
  }],
  users: [{ name: "test", token: env.TOKEN ?? "fidelity-token" }],
  contexts: [{
    name: "fake",
    cluster: "fake",
    user: "test",
    namespace: env.NAMESPACE,
  }],
  currentContext: "fake",
});

const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
const [group, version] = env.API_VERSION.includes("/")
  ? env.API_VERSION.split("/")
  : ["", env.API_VERSION];
// The informer needs the collection path; the list itself goes through
// KubernetesObjectApi, which finds the plural through discovery.
const listFn = () =>
  objects.list(
    env.API_VERSION,
    env.KIND,
    env.NAMESPACE,
    undefined,
    undefined,
    undefined,
    undefined,
    env.LABEL_SELECTOR,
  );
const resource = await objects.resource(env.API_VERSION, env.KIND);
if (!resource) {
  console.error(`Discovery does not know ${env.API_VERSION} ${env.KIND}`);
  process.exit(2);
}
const prefix = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
const path = resource.namespaced
  ? `${prefix}/namespaces/${env.NAMESPACE}/${resource.name}`
  : `${prefix}/${resource.name}`;
const informer = k8s.makeInformer(kc, path, listFn, env.LABEL_SELECTOR);

const print = (line) => console.log(JSON.stringify(line));
const describe = (event) => (obj) =>
  print({
    event,
    name: obj.metadata?.name,
    resourceVersion: obj.metadata?.resourceVersion,
    ...(obj.data === undefined ? {} : { data: obj.data }),
    ...(obj.status === undefined ? {} : { status: obj.status }),
  });
informer.on(k8s.ADD, describe("add"));
informer.on(k8s.UPDATE, describe("update"));
informer.on(k8s.DELETE, describe("delete"));
informer.on(k8s.CONNECT, () => print({ event: "connect" }));
informer.on(k8s.ERROR, (err) =>
  print({
    event: "error",
    message: String(err?.message ?? err),
    code: err?.code ?? err?.statusCode,
  }));

process.on("SIGTERM", async () => {
  await informer.stop();
  process.exit(0);
});

await informer.start();
print({
  event: "ready",
  names: informer.list(env.NAMESPACE).map((o) => o.metadata?.name).sort(),
});
