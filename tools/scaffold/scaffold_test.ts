// The scaffold's generator on its own (names, files, the markers `add`
// writes at, its refusals). That the generated project passes its own tests
// is scaffold_check.ts, a gate step of its own: it runs `deno`.
import assert from "node:assert/strict";
import { join } from "node:path";
import { add, init, LIBRARY, MARKERS, namesOf } from "./scaffold.ts";

Deno.test("namesOf gives each kind its constant, files, controller name and plural", () => {
  assert.deepEqual(namesOf("CronTab"), {
    kind: "CronTab",
    constant: "CRON_TAB",
    camel: "cronTab",
    snake: "cron_tab",
    dashed: "cron-tab",
    plural: "crontabs",
  });
  assert.equal(namesOf("Widget").plural, "widgets");
  assert.equal(namesOf("Policy").plural, "policies");
  assert.equal(namesOf("Gateway").plural, "gateways");
  assert.equal(namesOf("Box").plural, "boxes");
  assert.equal(namesOf("DNSRecord").snake, "dns_record");
  assert.equal(namesOf("DNSRecord").camel, "dnsRecord");
  assert.equal(namesOf("Widget", "widgetz").plural, "widgetz");
  assert.throws(() => namesOf("widget"), /PascalCase/);
  assert.throws(() => namesOf("Wid-get"), /PascalCase/);
  assert.throws(() => namesOf("Condition"), /clashes/);
  assert.throws(() => namesOf("Widget", "Widgets"), /lower case/);
});

Deno.test("init writes a project with one resource, and add a second beside it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scaffold-" });
  try {
    const project = join(dir, "widget-operator");
    const written = await init(project, { kind: "Widget" });
    assert.deepEqual(written.sort(), [
      ".dockerignore",
      "Dockerfile",
      "README.md",
      "controllers/widget.ts",
      "controllers/widget_test.ts",
      "deno.json",
      "main.ts",
      "manifests.ts",
      "manifests/deployment.yaml",
      "manifests_test.ts",
      "operator.ts",
      "operator.ts",
      "operator_test.ts",
      "resources/widget.ts",
    ]);
    const read = (path: string): Promise<string> =>
      Deno.readTextFile(join(project, path));
    // Users get the published package; no link without --local.
    const config = JSON.parse(await read("deno.json"));
    assert.deepEqual(config.imports, { "@liken/kubernetes": LIBRARY });
    assert.equal(config.links, undefined);
    assert.equal(typeof config.tasks.test, "string");
    // Every placeholder filled in, in every file.
    for (const path of written) {
      assert.doesNotMatch(await read(path), /__[A-Za-z_]+__/, path);
    }
    const resource = await read("resources/widget.ts");
    assert.match(resource, /group: "example\.com",\n\s+version: "v1alpha1"/);
    assert.match(resource, /kind: "Widget",\n\s+plural: "widgets"/);
    assert.match(await read("operator.ts"), /OPERATOR = "widget-operator"/);

    const more = await add(project, { kind: "CronTab", version: "v1" });
    assert.deepEqual(more, [
      "resources/cron_tab.ts",
      "controllers/cron_tab.ts",
      "controllers/cron_tab_test.ts",
      "operator.ts",
    ]);
    // The group defaults to the project's first resource's.
    assert.match(
      await read("resources/cron_tab.ts"),
      /group: "example\.com",\n\s+version: "v1",\n\s+kind: "CronTab"/,
    );
    // Each list in operator.ts gains an entry just above its marker, which
    // stays for the next add.
    const operator = await read("operator.ts");
    for (
      const [marker, lines] of [
        [MARKERS.imports, [
          'import { WIDGET } from "./resources/widget.ts";',
          'import { widgetController } from "./controllers/widget.ts";',
          'import { CRON_TAB } from "./resources/cron_tab.ts";',
          'import { cronTabController } from "./controllers/cron_tab.ts";',
        ]],
        [MARKERS.resources, ["  WIDGET,", "  CRON_TAB,"]],
        [MARKERS.controllers, [
          "    widgetController(each),",
          "    cronTabController(each),",
        ]],
      ] as const
    ) {
      const all = operator.split("\n");
      const at = all.findIndex((l) => l.trim() === marker);
      assert.deepEqual(all.slice(at - lines.length, at), lines, marker);
    }

    // The same kind twice, a project that is not one, a non-empty folder.
    await assert.rejects(add(project, { kind: "CronTab" }), /exists/);
    await assert.rejects(add(dir, { kind: "Gadget" }), /no operator\.ts/);
    await assert.rejects(init(project, { kind: "Gadget" }), /not empty/);
    await assert.rejects(
      add(project, { kind: "Gadget", group: "nodots" }),
      /Group "nodots" is not valid/,
    );
    // A refused add leaves operator.ts as it was.
    assert.equal(await read("operator.ts"), operator);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("init --local links the checkout in place of the published package", async () => {
  const dir = await Deno.makeTempDir({ prefix: "scaffold-" });
  try {
    const checkout = join(dir, "checkout");
    await Deno.mkdir(checkout);
    await Deno.writeTextFile(
      join(checkout, "deno.json"),
      JSON.stringify({ name: "@liken/kubernetes" }),
    );
    const project = join(dir, "op");
    await init(project, { kind: "Widget", local: checkout });
    const config = JSON.parse(
      await Deno.readTextFile(join(project, "deno.json")),
    );
    assert.deepEqual(config.imports, { "@liken/kubernetes": LIBRARY });
    assert.deepEqual(config.links, [checkout]);
    assert.match(
      await Deno.readTextFile(join(project, "README.md")),
      /links `@liken\/kubernetes` to a checkout/,
    );
    // Anything else is refused.
    await Deno.writeTextFile(join(checkout, "deno.json"), "{}");
    await assert.rejects(
      init(join(dir, "op2"), { kind: "Widget", local: checkout }),
      /is not a checkout of @liken\/kubernetes/,
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
