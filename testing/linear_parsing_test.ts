// Every parser of the fake that reads a client's text (label and field
// selectors, printer-column JSONPath, the Accept header, object names and
// labels) finishes on 100,000 characters of the worst input for its
// pattern. The bound (1 s each) is 20x or more what a linear parse takes on
// a loaded machine; a quadratic one takes seconds to minutes.
import assert from "node:assert/strict";
import { fieldSelector, labelSelector } from "./_verbs/selectors.ts";
import { evaluate, parsePath } from "./_tables/jsonpath.ts";
import { negotiateAs } from "./_http/negotiation.ts";
import { FakeApiServer } from "./fake_server.ts";
import { call } from "./_test_util.ts";

const N = 100_000;
const BOUND = 1000;

/** Runs `parse` on each input and asserts each took at most BOUND ms. */
async function finishes(
  inputs: Record<string, string>,
  parse: (text: string) => unknown,
): Promise<void> {
  for (const [name, text] of Object.entries(inputs)) {
    const started = Date.now();
    try {
      await parse(text);
    } catch {
      // Refusing is an answer too; only the time counts here.
    }
    const took = Date.now() - started;
    assert.ok(took < BOUND, `${name}: ${took} ms for ${text.length} chars`);
  }
}

Deno.test("label selectors of 100k hostile characters parse in linear time", async () => {
  await finishes({
    "a key that never ends": "a".repeat(N) + "!",
    "a set that never closes": "a in (" + "x,".repeat(N / 2),
    "in, repeated": "a" + " in".repeat(N / 3),
    "! then spaces": "!" + " ".repeat(N) + "a b",
    "open parens": "(".repeat(N) + ",",
    "a value of dashes": "a=" + "b-".repeat(N / 2),
    "a prefix of dots": "a.".repeat(N / 2) + "-/x=y",
  }, labelSelector);
});

Deno.test("field selectors of 100k hostile characters parse in linear time", async () => {
  await finishes({
    "a field then spaces": "a".repeat(N) + " ".repeat(N) + "!",
    "a value of spaces": "metadata.name=" + " ".repeat(N) + "x",
    "commas": ",".repeat(N),
  }, (text) => fieldSelector(text));
});

Deno.test("a printer-column JSONPath filter with 100k spaces before its end parses in linear time", async () => {
  await finishes({
    "spaces after the literal": "[?(@.a==b" + " ".repeat(N) + "c)]",
    "spaces before the operator": "[?(@.a" + " ".repeat(N) + "==1)]",
    "a long field": "." + "a".repeat(N),
    "open brackets": "[".repeat(N),
    "an unclosed quote": "['" + "a".repeat(N) + "]",
    "a long filter path": "[?(@" + ".a".repeat(N / 2) + ")]",
  }, parsePath);
  // The loop reads filters as the regular expression did.
  const items = { items: [{ t: "Ready", n: 2 }, { t: "Other", n: 5 }] };
  const read = (path: string) => evaluate(parsePath(path)!, items);
  assert.deepEqual(read(`.items[?(@.t=="Ready")].n`), [2]);
  assert.deepEqual(read(`.items[?( @.n >= 3 )].t`), ["Other"]);
  assert.deepEqual(read(`.items[?(@.n<3)].t`), ["Ready"]);
  assert.deepEqual(read(`.items[?(@.n)].t`), ["Ready", "Other"]);
  assert.equal(parsePath(`[?(@.n==)]`), undefined);
  assert.equal(parsePath(`[?(@.n ~ 1)]`), undefined);
  assert.equal(parsePath(`[?(.n==1)]`), undefined);
});

Deno.test("an Accept header of 100k hostile characters is negotiated in linear time", async () => {
  await finishes({
    "quotes": "application/json;as=" + '"'.repeat(N) + "x",
    "clauses": "application/json;as=Table,".repeat(N / 26),
    "parameters": "application/json" + ";a=b".repeat(N / 4),
  }, (text) => negotiateAs(text, ["Table"]));
});

Deno.test("names and labels of 100k hostile characters are checked in linear time", async () => {
  await using server = new FakeApiServer();
  const CM = "/api/v1/namespaces/default/configmaps";
  const cases: Record<string, Record<string, unknown>> = {
    "a name of dots": { name: "a.".repeat(N / 2) + "-" },
    "a label prefix of dashes": {
      name: "x",
      labels: { ["a" + "-a".repeat(N / 2) + "-/k"]: "v" },
    },
    "a label value of dots": {
      name: "x",
      labels: { k: "a" + "._".repeat(N / 2) + "!" },
    },
  };
  for (const [name, metadata] of Object.entries(cases)) {
    const started = Date.now();
    const answer = await call(server, "POST", CM, { metadata });
    const took = Date.now() - started;
    assert.equal(answer.status, 422, name);
    assert.ok(took < BOUND, `${name}: ${took} ms`);
  }
});
