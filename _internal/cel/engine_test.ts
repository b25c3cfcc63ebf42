import assert from "node:assert/strict";
import {
  CelCompileError,
  CelCostError,
  CelRuntimeError,
  compile,
  schemaType,
} from "./mod.ts";

const spec = schemaType({
  type: "object",
  properties: {
    min: { type: "integer" },
    max: { type: "integer" },
    ratio: { type: "number" },
    name: { type: "string" },
    port: { "x-kubernetes-int-or-string": true },
    tags: { type: "array", items: { type: "string" } },
    items: {
      type: "array",
      items: { type: "object", properties: { n: { type: "integer" } } },
    },
    labels: { type: "object", additionalProperties: { type: "string" } },
    extra: {
      type: "object",
      "x-kubernetes-preserve-unknown-fields": true,
      properties: { known: { type: "integer" } },
    },
    at: { type: "string", format: "date-time" },
    every: { type: "string", format: "duration" },
  },
});

Deno.test("compile: a rule over self evaluates with JSON values", () => {
  const program = compile("self.min <= self.max", {
    variables: { self: spec },
  });
  assert.equal(program.run({ self: { min: 1, max: 2 } }), true);
  assert.equal(program.run({ self: { min: 3, max: 2 } }), false);
  assert.equal(program.resultType, "bool");
});

Deno.test("compile: nested objects, lists, maps and dyn convert by type", () => {
  const run = (expression: string, self: unknown): unknown =>
    compile(expression, { variables: { self: spec } }).run({ self });
  assert.equal(
    run("self.items.all(i, i.n > 0)", { items: [{ n: 1 }, { n: 2 }] }),
    true,
  );
  assert.equal(run("self.items[1].n", { items: [{ n: 1 }, { n: 2 }] }), 2n);
  assert.equal(run("self.labels.app == 'x'", { labels: { app: "x" } }), true);
  assert.equal(run("self.extra.known == 1", { extra: { known: 1 } }), true);
  assert.equal(run("self.ratio > 0.5", { ratio: 1 }), true);
  assert.equal(run("has(self.name)", {}), false);
  assert.equal(
    run("self.port == 80 || self.port == 'http'", { port: "http" }),
    true,
  );
  assert.equal(
    run("self.at < timestamp('2030-01-01T00:00:00Z')", {
      at: "2024-01-01T00:00:00Z",
    }),
    true,
  );
  assert.equal(run("self.every > duration('1m')", { every: "2m" }), true);
  assert.equal(run("self == self", { min: 1, items: [{ n: 1 }] }), true);
});

Deno.test("compile: errors are cel-go's words", () => {
  assert.throws(
    () => compile("x > 1", { variables: { self: spec } }),
    (error: unknown) => {
      assert.ok(error instanceof CelCompileError);
      assert.equal(
        error.message,
        "ERROR: <input>:1:1: undeclared reference to 'x' (in container '')\n | x > 1\n | ^",
      );
      return true;
    },
  );
  assert.throws(
    () => compile("self.nope > 1", { variables: { self: spec } }),
    {
      name: "CelCompileError",
      message:
        "ERROR: <input>:1:5: undefined field 'nope'\n | self.nope > 1\n | ....^",
    },
  );
  assert.throws(
    () => compile("self.min + self.name", { variables: { self: spec } }),
    /found no matching overload for '_\+_' applied to '\(int, string\)'/,
  );
});

Deno.test("run: a missing key is cel-go's runtime error", () => {
  const program = compile("self.labels.foo == 'a'", {
    variables: { self: spec },
  });
  assert.throws(
    () => program.run({ self: { labels: {} } }),
    (error: unknown) => {
      assert.ok(error instanceof CelRuntimeError);
      assert.equal(error.message, "no such key: foo");
      return true;
    },
  );
});

Deno.test("run: the cost limit stops a runaway expression", () => {
  const program = compile(
    "self.tags.all(a, self.tags.all(b, self.tags.all(c, a + b + c != '')))",
    { variables: { self: spec } },
  );
  const tags = Array.from({ length: 200 }, (_, i) => `t${i}`);
  assert.throws(() => program.run({ self: { tags } }), (error: unknown) => {
    assert.ok(error instanceof CelCostError);
    assert.equal(
      error.message,
      "operation cancelled: actual cost limit exceeded",
    );
    return true;
  });
  assert.equal(program.run({ self: { tags: ["a"] } }), true);
  assert.ok(program.lastCost > 0 && program.lastCost < 100);
  // An error absorbed by `||` does not hide the cost limit.
  const absorbed = compile(
    "self.tags.all(a, self.tags.all(b, a + b != '')) || true",
    { variables: { self: spec } },
  );
  assert.throws(
    () => absorbed.run({ self: { tags } }, { costLimit: 1000 }),
    CelCostError,
  );
});

Deno.test("schemaType: the API server's mapping of a structural schema", () => {
  assert.deepEqual(
    schemaType({
      type: "object",
      properties: {
        "foo-bar": { type: "string" },
        namespace: { type: "string" },
        "a.b/c__d": { type: "integer" },
        "9lives": { type: "string" },
        "white space": { type: "string" },
        any: { "x-kubernetes-preserve-unknown-fields": true },
        port: { "x-kubernetes-int-or-string": true },
        raw: { type: "string", format: "byte" },
        day: { type: "string", format: "date" },
        tags: {
          type: "array",
          items: { type: "string" },
          "x-kubernetes-list-type": "set",
        },
        ports: {
          type: "array",
          items: { type: "object", properties: { port: { type: "integer" } } },
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["port"],
        },
        labels: { type: "object", additionalProperties: { type: "string" } },
        template: {
          type: "object",
          "x-kubernetes-embedded-resource": true,
          "x-kubernetes-preserve-unknown-fields": true,
        },
      },
    }),
    {
      object: {
        foo__dash__bar: "string",
        __namespace__: "string",
        a__dot__b__slash__c__underscores__d: "int",
        port: "dyn",
        raw: "bytes",
        day: "timestamp",
        tags: { list: "string", listType: "set" },
        ports: {
          list: { object: { port: "int" } },
          listType: "map",
          mapKeys: ["port"],
        },
        labels: { map: "string" },
        template: {
          object: {
            kind: "string",
            apiVersion: "string",
            metadata: { object: { name: "string", generateName: "string" } },
          },
        },
      },
    },
  );
  assert.deepEqual(
    schemaType({
      type: "object",
      properties: {
        metadata: {
          type: "object",
          properties: { labels: { type: "object" } },
        },
        spec: { type: "object" },
      },
    }, { resourceRoot: true }),
    {
      object: {
        metadata: { object: { name: "string", generateName: "string" } },
        spec: { object: {} },
        kind: "string",
        apiVersion: "string",
      },
    },
  );
});

Deno.test("run: escaped fields read their properties; unknown ones stay hidden", () => {
  const self = schemaType({
    type: "object",
    properties: {
      "foo-bar": { type: "string" },
      namespace: { type: "string" },
    },
    "x-kubernetes-preserve-unknown-fields": true,
  });
  const program = compile("self.foo__dash__bar + self.__namespace__", {
    variables: { self },
  });
  assert.equal(program.run({ self: { "foo-bar": "a", namespace: "b" } }), "ab");
  assert.throws(
    () => compile("self.other == 1", { variables: { self } }),
    CelCompileError,
  );
});

Deno.test("run: set and map lists compare regardless of order", () => {
  const self = schemaType({
    type: "object",
    properties: {
      tags: {
        type: "array",
        items: { type: "string" },
        "x-kubernetes-list-type": "set",
      },
      order: { type: "array", items: { type: "string" } },
      ports: {
        type: "array",
        items: {
          type: "object",
          properties: { port: { type: "integer" }, name: { type: "string" } },
        },
        "x-kubernetes-list-type": "map",
        "x-kubernetes-list-map-keys": ["port"],
      },
    },
  });
  const same = compile("self == oldSelf", {
    variables: { self, oldSelf: self },
  });
  assert.equal(
    same.run({ self: { tags: ["a", "b"] }, oldSelf: { tags: ["b", "a"] } }),
    true,
  );
  assert.equal(
    same.run({ self: { order: ["a", "b"] }, oldSelf: { order: ["b", "a"] } }),
    false,
  );
  const ports = (...items: [number, string][]) => ({
    ports: items.map(([port, name]) => ({ port, name })),
  });
  assert.equal(
    same.run({
      self: ports([1, "a"], [2, "b"]),
      oldSelf: ports([2, "b"], [1, "a"]),
    }),
    true,
  );
  assert.equal(
    same.run({
      self: ports([1, "a"], [2, "b"]),
      oldSelf: ports([2, "a"], [1, "b"]),
    }),
    false,
  );
});

Deno.test("run: deep nesting and huge inputs neither overflow the stack nor hang", () => {
  let deep: unknown = 1;
  for (let i = 0; i < 100_000; i++) deep = { a: deep };
  const self = schemaType({
    type: "object",
    properties: { any: { "x-kubernetes-int-or-string": true } },
  });
  const equal = compile("self == oldSelf", {
    variables: { self, oldSelf: self },
  });
  assert.throws(
    () => equal.run({ self: { any: deep }, oldSelf: { any: deep } }),
    CelRuntimeError,
  );
  // A deeply nested expression is refused when compiled, as cel-go's
  // parser refuses it past its recursion limit.
  assert.throws(
    () =>
      compile("(".repeat(300) + "1" + ")".repeat(300) + " == 1", {
        variables: {},
      }),
    CelCompileError,
  );
  // A long list scanned in a nested loop: the cost limit ends the scan.
  const list = schemaType({
    type: "object",
    properties: { items: { type: "array", items: { type: "integer" } } },
  });
  const scan = compile("self.items.all(i, self.items.exists(j, j == i))", {
    variables: { self: list },
  });
  const items = Array.from({ length: 100_000 }, (_, i) => i);
  assert.throws(() => scan.run({ self: { items } }), CelCostError);
});

Deno.test("matches: RE2 in linear time, and its syntax", () => {
  const self = schemaType({
    type: "object",
    properties: { name: { type: "string" } },
  });
  const run = (expression: string, name: string): unknown =>
    compile(expression, { variables: { self } }).run({ self: { name } });
  // Catastrophic for a backtracking engine; RE2 answers at once.
  const started = performance.now();
  assert.equal(
    run("self.name.matches('^(a+)+$')", "a".repeat(40) + "b"),
    false,
  );
  assert.ok(performance.now() - started < 2000);
  assert.equal(run("self.name.matches('(?i)^ABC$')", "abc"), true);
  assert.equal(run("self.name.find('[0-9]+')", "ab12cd34"), "12");
  assert.deepEqual(run("self.name.findAll('[0-9]+')", "ab12cd34"), [
    "12",
    "34",
  ]);
  // A literal pattern Go's regexp refuses does not compile.
  assert.throws(
    () => compile("self.name.matches('(')", { variables: { self } }),
    {
      name: "CelCompileError",
      message:
        "ERROR: <input>:1:19: invalid matches argument\n | self.name.matches('(')\n | ..................^",
    },
  );
  // A pattern built at run time fails when evaluated.
  assert.throws(
    () => run("self.name.matches(self.name)", "("),
    {
      name: "CelRuntimeError",
      message: /^error parsing regexp: missing closing \)/,
    },
  );
  assert.throws(
    () => compile("duration('1x') > duration('1s')", { variables: {} }),
    {
      name: "CelCompileError",
      message: /invalid duration argument/,
    },
  );
});

Deno.test("compile: what the API server's environment lacks is refused", () => {
  assert.throws(() => compile("['a', 1].size() == 2", { variables: {} }), {
    name: "CelCompileError",
    message: /^ERROR: <input>:1:7: expected type 'string' but found 'int'/,
  });
  assert.throws(() => compile("cel.bind(x, 1, x == 1)", { variables: {} }), {
    name: "CelCompileError",
    message: /^ERROR: <input>:1:1: undeclared reference to 'cel'/,
  });
  // New in 1.37: only an expression already stored may use it.
  assert.throws(() => compile("[1].includes(1)", { variables: {} }), {
    name: "CelCompileError",
    message: /undeclared reference to 'includes'/,
  });
  assert.equal(
    compile("[1].includes(1)", { variables: {}, stored: true }).run({}),
    true,
  );
  assert.throws(() => compile("math.greatest(1, 2) == 2", { variables: {} }), {
    name: "CelCompileError",
    message: /^ERROR: <input>:1:1: undeclared reference to 'math'/,
  });
});

Deno.test("libraries: the Kubernetes environment's functions", () => {
  const cases: [string, unknown][] = [
    ["'a-b'.replace('-', '_')", "a_b"],
    ["'abc'.charAt(1)", "b"],
    ["'%s has %d items'.format([dyn('list'), dyn(3)])", "list has 3 items"],
    ["strings.quote('a\"b')", '"a\\"b"'],
    ["[3, 1, 2].sort() == [1, 2, 3]", true],
    ["[1, 2, 3].sum()", 6n],
    ["[1, 2, 3].isSorted() && [1, 2].indexOf(2) == 1", true],
    ["lists.range(3) == [0, 1, 2] && [[1], [2]].flatten() == [1, 2]", true],
    ["[1, 2, 2].distinct().size() == 2 && [1, 2, 3].slice(1, 2) == [2]", true],
    ["sets.contains([1, 2], [2]) && sets.intersects([1], [1, 3])", true],
    ["{'a': 1}.transformMap(k, v, v + 1)['a']", 2n],
    ["[1, 2].transformList(i, v, i + v) == [1, 3]", true],
    ["quantity('1Gi').isGreaterThan(quantity('1G'))", true],
    ["quantity('500m').add(quantity('1.5')).asInteger()", 2n],
    ["isQuantity('1Xi')", false],
    ["url('https://example.com:8443/a?x=1').getPort()", "8443"],
    ["url('https://[::1]:80/').getHostname()", "::1"],
    ["ip('10.0.0.1').family() == 4 && ip('::1').isLoopback()", true],
    ["cidr('10.0.0.0/8').containsIP(ip('10.1.2.3'))", true],
    ["cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')", true],
    ["string(cidr('192.168.1.7/24').masked())", "192.168.1.0/24"],
    ["ip.isCanonical('2001:db8::1') && !ip.isCanonical('2001:DB8::1')", true],
    ["semver('1.2.3').isLessThan(semver('1.10.0'))", true],
    ["semver('v1.2', true).minor()", 2n],
    ["format.dns1123Label().validate('ok-name').hasValue()", false],
    ["format.dns1123Label().validate('Not_OK').hasValue()", true],
    ["format.named('uuid').hasValue()", true],
  ];
  for (const [source, expected] of cases) {
    assert.deepEqual(
      compile(source, { variables: {} }).run({}),
      expected,
      source,
    );
  }
  const failing: [string, string][] = [
    [
      "quantity('x')",
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
    ],
    [
      "ip('::ffff:1.2.3.4')",
      'IPv4-mapped IPv6 address "::ffff:1.2.3.4" is not allowed',
    ],
    ["[].max()", "max called on empty list"],
    ["quantity('1.5').asInteger()", "cannot convert value to integer"],
  ];
  for (const [source, message] of failing) {
    assert.throws(() => compile(source, { variables: {} }).run({}), {
      name: "CelRuntimeError",
      message,
    }, source);
  }
});

Deno.test("run: the cost counts as cel-go's cost tracker, literals free", () => {
  const self = schemaType({
    type: "object",
    properties: { items: { type: "array", items: { type: "integer" } } },
  });
  const program = compile("self.items.all(i, i > 0)", {
    variables: { self },
  });
  // `self`, `.items` and the result, then per item the loop's condition
  // (2), its `__result__ &&` (1), `i` and `>`; the first evaluation counts
  // as the later ones do.
  for (const [items, cost] of [[[], 3], [[1, 2, 3], 18], [[1, 2, 3], 18]]) {
    program.run({ self: { items } });
    assert.equal(program.lastCost, cost);
  }
  program.run({ self: { items: [1, 2, 3, 4, 5, 6] } });
  assert.equal(program.lastCost, 33);
  const constant = compile("1 + 2 == 3", { variables: {} });
  assert.equal(constant.run({}), true);
  assert.equal(constant.lastCost, 2);
});

Deno.test("run: an optional variable (optionalOldSelf) is none when left out", () => {
  const self = schemaType({
    type: "object",
    properties: { size: { type: "integer" } },
  });
  const program = compile(
    "oldSelf.hasValue() ? self.size >= oldSelf.value().size : self.size > 0",
    { variables: { self, oldSelf: { optional: self } } },
  );
  assert.equal(program.run({ self: { size: 1 } }), true);
  assert.equal(program.run({ self: { size: 1 }, oldSelf: { size: 2 } }), false);
  assert.equal(
    compile("oldSelf.orValue(self) == self", {
      variables: { self, oldSelf: { optional: self } },
    }).run({ self: { size: 1 }, oldSelf: null }),
    true,
  );
});

Deno.test("authz: checks go to the authorizer passed in", () => {
  const asked: unknown[] = [];
  const authorizer = {
    authorize(
      attributes: { verb: string; resource?: string },
    ): { decision: "allow" | "deny"; reason?: string } {
      asked.push(attributes);
      return attributes.resource === "secrets"
        ? { decision: "deny", reason: "no secrets" }
        : { decision: "allow" };
    },
    requestResource: { group: "apps", resource: "deployments" },
  };
  const run = (expression: string): unknown =>
    compile(expression, { variables: { authorizer: "authorizer" } }).run({
      authorizer,
    });
  assert.equal(
    run(
      "authorizer.group('').resource('pods').namespace('a').check('get').allowed()",
    ),
    true,
  );
  assert.equal(
    run("authorizer.group('').resource('secrets').check('list').reason()"),
    "no secrets",
  );
  assert.equal(
    run("authorizer.requestResource.check('update').allowed()"),
    true,
  );
  assert.equal(
    run(
      "authorizer.serviceAccount('ns', 'sa').path('/healthz').check('get').errored()",
    ),
    false,
  );
  assert.deepEqual(asked, [
    { group: "", resource: "pods", namespace: "a", verb: "get" },
    { group: "", resource: "secrets", verb: "list" },
    { group: "apps", resource: "deployments", verb: "update" },
    { path: "/healthz", user: { namespace: "ns", name: "sa" }, verb: "get" },
  ]);
});

Deno.test("run: arithmetic errors and regex matches in cel-go's terms", () => {
  const failing: [string, string][] = [
    ["9223372036854775807 + 1 > 0", "integer overflow"],
    ["1 % 0 == 0", "modulus by zero"],
    ["1 / 0 == 0", "division by zero"],
  ];
  for (const [source, message] of failing) {
    assert.throws(() => compile(source, { variables: {} }).run({}), {
      name: "CelRuntimeError",
      message,
    }, source);
  }
  // Code points, as RE2 finds them.
  assert.equal(compile("'😀x'.find('.')", { variables: {} }).run({}), "😀");
});

Deno.test("compile: errors are placed and worded as cel-go's", () => {
  const message = (expression: string): string => {
    try {
      compile(expression, { variables: { self: spec } });
    } catch (error) {
      assert.ok(error instanceof CelCompileError);
      return error.message.split("\n")[0]!;
    }
    return assert.fail(`${expression} compiled`);
  };
  // An operator's overload error at the operator, a member call's at `(`.
  assert.equal(
    message("self.min == 'one'"),
    "ERROR: <input>:1:10: found no matching overload for '_==_' applied to '(int, string)'",
  );
  assert.equal(
    message("(self.min + 1) * 'a'"),
    "ERROR: <input>:1:16: found no matching overload for '_*_' applied to '(int, string)'",
  );
  assert.equal(
    message("self.min.startsWith('a')"),
    "ERROR: <input>:1:20: found no matching overload for 'startsWith' applied to 'int.(string)'",
  );
  // An expression missing after an operator: ANTLR's expected tokens.
  assert.equal(
    message("self.min >"),
    "ERROR: <input>:1:11: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
  );
  // A `.` followed by what cannot be a field.
  assert.equal(
    message("self.min.("),
    "ERROR: <input>:1:10: Syntax error: no viable alternative at input '.('",
  );
  assert.equal(
    message("[1, 2"),
    "ERROR: <input>:1:6: Syntax error: mismatched input '<EOF>' expecting ']'",
  );
});

Deno.test("run: conversions and comparisons as cel-go's", () => {
  const run = (expression: string): unknown =>
    compile(expression, { variables: {} }).run({});
  // An int against a double: as a double within the int range, so 2⁶³ - 1
  // is not below 2⁶³ (JavaScript compares exactly).
  assert.equal(run("dyn(9223372036854775807) < 9223372036854775808.0"), false);
  assert.equal(run("dyn(9223372036854775807) >= 9223372036854775808.0"), true);
  assert.equal(run("dyn(9223372036854775808.0) > 9223372036854775807"), false);
  assert.equal(run("dyn(1) < 1.5"), true);
  // A double past the int range does not convert.
  assert.throws(() => run("int(1e99)"), {
    name: "CelRuntimeError",
    message: "integer overflow",
  });
  assert.equal(run("int(-1.5)"), -1n);
  assert.throws(() => run("string(b'\\000\\xff')"), {
    name: "CelRuntimeError",
    message: "invalid UTF-8 in bytes, cannot convert to string",
  });
  // Go's %f rounds an exact tie to the even digit.
  assert.equal(run("'%.0f'.format([2.5])"), "2");
  assert.equal(run("'%.0f'.format([3.5])"), "4");
  assert.equal(run("'%.1f'.format([0.25])"), "0.2");
  assert.throws(
    () => run("timestamp('2009-02-13T23:31:30Z').getHours('Nowhere/Else')"),
    { name: "CelRuntimeError", message: "unknown time zone Nowhere/Else" },
  );
});

Deno.test("run: a failed conversion is worded as cel-go's", () => {
  const fails = (expression: string, message: string): void => {
    assert.throws(
      () => compile(expression, { variables: {} }).run({}),
      { name: "CelRuntimeError", message },
      expression,
    );
  };
  fails("int('x')", "type conversion error from 'string' to 'int'");
  fails("double('x')", "type conversion error from 'string' to 'double'");
  fails("bool('x')", "type conversion error from 'string' to 'bool'");
  fails("uint(-1)", "unsigned integer overflow");
  fails("int(18446744073709551615u)", "integer overflow");
  fails("int(0.0 / 0.0)", "integer overflow");
});

Deno.test("compile: an object compares with null, as cel-go's checker allows", () => {
  const self = schemaType({
    type: "object",
    properties: {
      a: { type: "object", properties: { b: { type: "integer" } } },
    },
  });
  const run = (expression: string): unknown =>
    compile(expression, { variables: { self } }).run({ self: { a: { b: 1 } } });
  assert.equal(run("self.a == null"), false);
  assert.equal(run("null != self.a"), true);
});
