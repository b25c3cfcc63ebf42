// `deno task scaffold:check`, a gate step of its own: generates a project
// pointed at this checkout, adds a second resource, and runs the project's
// own `deno task check` (format, lint, type check) and `deno task test` in
// a `deno` subprocess. It is not in the unit suite because it needs
// `--allow-run=deno`, and a test that may start `deno` may start it with
// every permission: the unit suite's permissions would mean nothing.
import assert from "node:assert/strict";
import { join, resolve } from "node:path";
import { add, init } from "./scaffold.ts";

const CHECKOUT = resolve(new URL("../../", import.meta.url).pathname);

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

Deno.test({
  name:
    "a generated project, with a second resource added, passes its own checks and tests",
  // Two deno runs that type-check the project: about 15 s here, in CI more.
  timeout: 120_000,
  async fn(): Promise<void> {
    await Deno.mkdir(join(CHECKOUT, ".tmp"), { recursive: true });
    const dir = await Deno.makeTempDir({
      dir: join(CHECKOUT, ".tmp"),
      prefix: "scaffold-",
    });
    try {
      const project = join(dir, "shop-operator");
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
      const rbac = await Deno.readTextFile(
        join(project, "manifests/rbac.yaml"),
      );
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
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
