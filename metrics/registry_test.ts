import assert from "node:assert/strict";
import { parse } from "./_prometheus_test_util.ts";
import { Counter, Registry } from "./mod.ts";
import { CONTENT_TYPE } from "./_defaults.ts";

Deno.test("an empty registry renders nothing", () => {
  assert.equal(new Registry().render(), "");
  assert.deepEqual(parse(new Registry().render()), []);
  assert.equal(CONTENT_TYPE, "text/plain; version=0.0.4; charset=utf-8");
});

Deno.test("counters, gauges and histograms render in the text format", () => {
  const registry = new Registry();
  const requests = registry.counter("demo_requests_total", {
    help: "Requests.",
    labels: ["code", "method"],
  });
  const depth = registry.gauge("demo_depth", { help: "Depth." });
  const seconds = registry.histogram("demo_seconds", {
    help: "Seconds.",
    labels: ["verb"],
    buckets: [0.1, 1, 10],
  });
  const quiet = registry.gauge("demo_quiet", {
    help: "No series yet.",
    labels: ["x"],
  });
  void quiet;
  requests.inc({ code: 200, method: "GET" });
  requests.inc({ method: "GET", code: "200" }, 2);
  requests.inc({ code: 404, method: "GET" });
  depth.set({}, 3);
  depth.dec();
  seconds.observe({ verb: "GET" }, 0.05);
  seconds.observe({ verb: "GET" }, 1); // le is inclusive: the 1 bucket
  seconds.observe({ verb: "GET" }, 20); // beyond every bound: +Inf only
  assert.equal(
    registry.render(),
    [
      "# HELP demo_requests_total Requests.",
      "# TYPE demo_requests_total counter",
      'demo_requests_total{code="200",method="GET"} 3',
      'demo_requests_total{code="404",method="GET"} 1',
      "# HELP demo_depth Depth.",
      "# TYPE demo_depth gauge",
      "demo_depth 2",
      "# HELP demo_seconds Seconds.",
      "# TYPE demo_seconds histogram",
      'demo_seconds_bucket{verb="GET",le="0.1"} 1',
      'demo_seconds_bucket{verb="GET",le="1"} 2',
      'demo_seconds_bucket{verb="GET",le="10"} 2',
      'demo_seconds_bucket{verb="GET",le="+Inf"} 3',
      'demo_seconds_sum{verb="GET"} 21.05',
      'demo_seconds_count{verb="GET"} 3',
      "# HELP demo_quiet No series yet.",
      "# TYPE demo_quiet gauge",
      "",
    ].join("\n"),
  );
  const parsed = parse(registry.render());
  assert.deepEqual(parsed.map((f) => [f.name, f.type, f.metrics.length]), [
    ["demo_requests_total", "COUNTER", 2],
    ["demo_depth", "GAUGE", 1],
    ["demo_seconds", "HISTOGRAM", 1],
    ["demo_quiet", "GAUGE", 0],
  ]);
  // This parser keeps a labelled histogram's buckets but drops its _sum and
  // _count (it merges them only without labels); the exact text above
  // checks those.
  assert.deepEqual(parsed[2]!.metrics[0]!.buckets, {
    "0.1": "1",
    "1": "2",
    "10": "2",
    "+Inf": "3",
  });
  const plain = new Registry();
  plain.histogram("plain_seconds", { help: "x", buckets: [1] }).observe({}, 2);
  assert.deepEqual(parse(plain.render())[0]!.metrics, [{
    buckets: { "1": "0", "+Inf": "1" },
    sum: "2",
    count: "1",
  }]);
});

Deno.test("label values and help texts are escaped, and parse back", () => {
  const registry = new Registry();
  const help = 'A back\\slash, a "quote" and a\nline feed.';
  const odd = registry.counter("demo_odd_total", {
    help,
    labels: ["value"],
  });
  const value = 'C:\\path "quoted"\nnext line';
  odd.inc({ value });
  const text = registry.render();
  assert.equal(
    text,
    [
      '# HELP demo_odd_total A back\\\\slash, a "quote" and a\\nline feed.',
      "# TYPE demo_odd_total counter",
      'demo_odd_total{value="C:\\\\path \\"quoted\\"\\nnext line"} 1',
      "",
    ].join("\n"),
  );
  const [family] = parse(text);
  assert.equal(family!.help, help);
  assert.deepEqual(family!.metrics, [{ labels: { value }, value: "1" }]);
});

Deno.test("labels keep the metric's order whatever order the caller gives", () => {
  const registry = new Registry();
  const c = registry.counter("demo_total", {
    help: "x",
    labels: ["zone", "app", "code"],
  });
  c.inc({ code: 1, app: "a", zone: "z" });
  c.inc({ app: "a", zone: "z", code: 1 });
  c.inc({ app: "b" }); // left out: empty values
  const lines = registry.render().split("\n").filter((l) => !l.startsWith("#"));
  assert.deepEqual(lines, [
    'demo_total{zone="z",app="a",code="1"} 2',
    'demo_total{zone="",app="b",code=""} 1',
    "",
  ]);
  // Values holding the separator stay apart.
  c.inc({ zone: "a\u0000b", app: "" });
  c.inc({ zone: "a", app: "b" });
  assert.equal(c.get({ zone: "a\u0000b", app: "" }), 1);
  assert.equal(c.get({ zone: "a", app: "b" }), 1);
});

Deno.test("special values and collectors", () => {
  const registry = new Registry();
  const g = registry.gauge("demo_g", { help: "g", labels: ["k"] });
  g.set({ k: "inf" }, Infinity);
  g.set({ k: "-inf" }, -Infinity);
  g.set({ k: "nan" }, NaN);
  let calls = 0;
  registry.onCollect(() => g.set({ k: "collected" }, ++calls));
  registry.onCollect(() => {
    throw new Error("a broken collector costs nothing else");
  });
  const text = registry.render();
  assert.match(text, /^demo_g\{k="inf"\} \+Inf$/m);
  assert.match(text, /^demo_g\{k="-inf"\} -Inf$/m);
  assert.match(text, /^demo_g\{k="nan"\} NaN$/m);
  assert.match(text, /^demo_g\{k="collected"\} 1$/m);
  assert.match(registry.render(), /^demo_g\{k="collected"\} 2$/m);
  assert.equal(g.remove({ k: "nan" }), true);
  assert.doesNotMatch(registry.render(), /nan/);
});

Deno.test("names, labels, buckets and counter steps are checked", () => {
  const registry = new Registry();
  registry.counter("taken_total", { help: "x" });
  assert.throws(
    () => registry.gauge("taken_total", { help: "x" }),
    /A metric named taken_total exists already/,
  );
  assert.throws(() => registry.counter("1bad", { help: "x" }), TypeError);
  assert.throws(() => registry.counter("bad-name", { help: "x" }), TypeError);
  assert.throws(
    () => registry.counter("ok_total", { help: "x", labels: ["__reserved"] }),
    TypeError,
  );
  assert.throws(
    () => registry.counter("ok_total", { help: "x", labels: ["a-b"] }),
    TypeError,
  );
  assert.throws(
    () => registry.counter("ok_total", { help: "x", labels: ["a", "a"] }),
    /names a label twice/,
  );
  assert.throws(
    () => registry.histogram("h", { help: "x", labels: ["le"] }),
    /label named le/,
  );
  assert.throws(
    () => registry.histogram("h", { help: "x", buckets: [1, 1] }),
    /must ascend/,
  );
  const c = new Counter<"a">("free_total", { help: "x", labels: ["a"] });
  assert.throws(() => c.inc({ a: "1" }, -1), RangeError);
  assert.throws(() => c.inc({ a: "1" }, NaN), RangeError);
  assert.throws(
    () => c.inc({ b: "1" } as unknown as { a: string }),
    /has no label b/,
  );
  // A registry given an explicit +Inf bucket does not write it twice.
  const h = registry.histogram("h2", { help: "x", buckets: [1, Infinity] });
  h.observe({}, 2);
  assert.equal(registry.render().match(/h2_bucket\{le="\+Inf"\}/g)?.length, 1);
});
