// `deno task scaffold:check`, a gate step of its own: generates a project
// pointed at this checkout, adds a second resource, runs the project's own
// `deno task manifests`, `deno task check` (format, lint, type check) and
// `deno task test` in `deno` subprocesses, then runs its main.ts against
// the fake API server served on loopback. It is not in the unit suite
// because it needs `--allow-run=deno`, and a test that may start `deno` may
// start it with every permission: the unit suite's permissions would mean
// nothing.
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { loadAll } from "js-yaml";
import { Client, type KubeObject } from "../../apiclient/mod.ts";
import { FakeApiServer } from "../../testing/mod.ts";
import { guarded } from "../needs.ts";
import { add, init } from "./scaffold.ts";

const CHECKOUT = resolve(new URL("../../", import.meta.url).pathname);
const NAME = "shop-operator";

async function task(cwd: string, name: string): Promise<string> {
  const { success, stdout, stderr } = await new Deno.Command("deno", {
    args: ["task", name],
    cwd,
    env: { NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const output = new TextDecoder().decode(stdout) +
    new TextDecoder().decode(stderr);
  assert.ok(success, `deno task ${name} failed in ${cwd}:\n${output}`);
  return output;
}

// One project for both tests: the second runs what the first generated.
await Deno.mkdir(join(CHECKOUT, ".tmp"), { recursive: true });
const dir = await Deno.makeTempDir({
  dir: join(CHECKOUT, ".tmp"),
  prefix: "scaffold-",
});
const project = join(dir, NAME);
let generated = false;
Deno.test.afterAll(async () => {
  await Deno.remove(dir, { recursive: true });
});

Deno.test({
  name:
    "a generated project, with a second resource added, passes its own checks and tests",
  // Three deno runs, two of which type-check the project: about 20 s here.
  timeout: 120_000,
  async fn(): Promise<void> {
    await init(project, {
      kind: "Widget",
      group: "shop.example.com",
      local: CHECKOUT,
    });
    await add(project, { kind: "CronTab", version: "v1" });
    // The manifests task writes both resources' CRDs and the RBAC.
    await task(project, "manifests");
    const crds = await Deno.readTextFile(join(project, "manifests/crd.yaml"));
    assert.deepEqual(
      [...crds.matchAll(/^ {4}kind: (\w+)$/gm)].map((m) => m[1]),
      ["Widget", "CronTab"],
    );
    const rbac = await Deno.readTextFile(join(project, "manifests/rbac.yaml"));
    assert.match(rbac, /- widgets\/status\n/);
    assert.match(rbac, /- crontabs\/status\n/);
    await task(project, "check");
    const output = await task(project, "test");
    // Each test file ran: both controllers', the operator's, the
    // manifests'.
    for (
      const name of [
        "a Widget gets a Ready status and an Event",
        "a CronTab gets a Ready status and an Event",
        "every controller runs in one Manager",
        "the Dockerfile's deno compile flags",
      ]
    ) {
      assert.match(output, new RegExp(`${name}.* \\.\\.\\. ok`), output);
    }
    assert.match(output, /^ok \| 6 passed \| 0 failed/m, output);
    generated = true;
  },
});

/** Why main.ts cannot serve its probes here, if it cannot. */
function probePortTaken(): { why: string; how: string } | undefined {
  try {
    Deno.listen({ hostname: "0.0.0.0", port: 8080 }).close();
    return undefined;
  } catch (error) {
    if (!(error instanceof Deno.errors.AddrInUse)) throw error;
    return {
      why: "port 8080 (main.ts's probe server) is in use",
      how: "deno task scaffold:check, with port 8080 free",
    };
  }
}

Deno.test(guarded({
  name:
    "the generated main.ts takes the Lease, serves its probes, and releases the Lease on SIGTERM",
  timeout: 60_000,
  async fn(): Promise<void> {
    assert.ok(generated, "the project was not generated");
    await using server = new FakeApiServer();
    await using served = await server.serve();
    const admin = new Client(served.url);
    // The CRDs as `deno task manifests` wrote them.
    const crds = loadAll(
      await Deno.readTextFile(join(project, "manifests/crd.yaml")),
    ) as KubeObject[];
    for (const crd of crds) {
      await admin.create(
        "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        crd,
      );
    }
    await admin.resource({
      group: "shop.example.com",
      version: "v1alpha1",
      resource: "widgets",
    }).namespace("default").create({
      metadata: { name: "one" },
      spec: { message: "hi" },
    } as KubeObject);
    const kubeconfig = join(dir, "kubeconfig.json");
    await Deno.writeTextFile(
      kubeconfig,
      JSON.stringify({
        "current-context": "fake",
        clusters: [{ name: "fake", cluster: { server: served.url } }],
        contexts: [{
          name: "fake",
          context: { cluster: "fake", namespace: "default" },
        }],
      }),
    );
    // The Dockerfile's permissions, but the kubeconfig for the in-cluster
    // files and the fake's address for the API server's.
    const child = new Deno.Command("deno", {
      args: [
        "run",
        "--allow-net=127.0.0.1,0.0.0.0:8080",
        `--allow-read=${kubeconfig}`,
        "--allow-env=KUBECONFIG,HOME,KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,POD_NAME,POD_NAMESPACE,WATCH_NAMESPACE",
        "main.ts",
      ],
      cwd: project,
      env: { NO_COLOR: "1", KUBECONFIG: kubeconfig, POD_NAME: "smoke-0" },
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    const stderr = new Response(child.stderr).text();
    try {
      const holder = (): string => server.leaseHolder("default", NAME) ?? "";
      const ready = async (): Promise<boolean> => {
        const res = await fetch("http://127.0.0.1:8080/readyz").catch(
          () => undefined,
        );
        await res?.body?.cancel();
        return res?.status === 200;
      };
      const widget = (): KubeObject & {
        status?: { conditions?: { type: string; status: string }[] };
      } =>
        server.object(
          "/apis/shop.example.com/v1alpha1/namespaces/default/widgets/one",
        )!;
      // Real time: a child process. Generous: it type-checks first.
      const deadline = Date.now() + 45_000;
      while (
        !(holder().startsWith("smoke-0_") && await ready() &&
          widget().status?.conditions?.[0]?.status === "True")
      ) {
        assert.ok(Date.now() < deadline, "main.ts did not get going");
        await new Promise((r) => setTimeout(r, 100));
      }
      child.kill("SIGTERM");
      const status = await child.status;
      const log = await stderr;
      assert.equal(status.code, 0, log);
      // klog's JSON lines: the signal's, and the manager's last.
      assert.match(
        log,
        /^\{"ts":[\d.]+,"caller":"[^"]+","msg":"Signal received: stopping","v":0\}$/m,
      );
      assert.match(log, /"msg":"Stopped","v":0,"logger":"manager"\}$/m);
      assert.equal(holder(), "", "the Lease is released");
    } finally {
      try {
        child.kill("SIGKILL");
      } catch {
        // It has ended.
      }
      await child.status;
      await stderr;
    }
  },
}, probePortTaken()));
