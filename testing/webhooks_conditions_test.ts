// matchConditions: the package's CEL engine in the API server's
// environment for them, the webhooks it leaves out or calls, an evaluation
// error under failurePolicy, and the 422 for an expression that does not
// compile (or names `authorizer`, which the fake does not evaluate).
import assert from "node:assert/strict";
import {
  CelCompileError,
  CelRuntimeError,
  CelUnsupportedError,
  compileMatchCondition,
} from "../_internal/cel/mod.ts";
import {
  ADMISSION,
  fixture,
  greeting,
  GREETINGS,
  GROUP,
  internalError,
} from "./_admission/webhooks_test_util.ts";

const VARS = {
  object: {
    metadata: { name: "a", labels: { team: "blue", tier: "1" } },
    spec: { message: "hello world", size: 3, tags: ["x", "y"] },
  },
  oldObject: null,
  request: {
    operation: "CREATE",
    userInfo: { username: "system:serviceaccount:ops:robot" },
  },
};

Deno.test("match conditions: what they evaluate", () => {
  const cases: [string, unknown][] = [
    ["has(object.spec)", true],
    ["has(object.status)", false],
    ["has(object.metadata.labels.team)", true],
    ["object.spec.size == 3 && object.spec.size >= 3", true],
    ["object.spec.size < 3 || object.spec.size > 2", true],
    ["!(object.spec.size != 3)", true],
    ["object.metadata.name == 'a'", true],
    ['object.metadata.labels["team"] == "blue"', true],
    ["object.spec.tags[1] == 'y'", true],
    ["'team' in object.metadata.labels", true],
    ["'red' in ['blue', 'green']", false],
    ["object.metadata.labels.team in ['blue', 'green']", true],
    ["oldObject == null", true],
    ["request.operation == 'CREATE'", true],
    ["request.userInfo.username.startsWith('system:serviceaccount:')", true],
    ["object.spec.message.endsWith('world')", true],
    ["object.spec.message.contains('o w')", true],
    ["size(object.spec.tags) == 2 && object.spec.message.size() == 11", true],
    ["object.spec.size == 3 ? true : false", true],
    ["-1 < 0", true],
    ['"a\\"b" == \'a"b\'', true],
    // An error on one side of && / || gives way to a decisive other side.
    ["object.spec.missing == 1 || true", true],
    ["false && object.spec.missing == 1", false],
    // What the subset it replaced refused: macros, arithmetic, doubles,
    // map literals, optionals, the regex and string libraries.
    ["object.spec.tags.all(t, t != '')", true],
    ["object.spec.tags.exists(i, t, i == 1 && t == 'y')", true],
    ["object.spec.size + 1 == 4", true],
    ["1.5 < 2", true],
    ["{'a': 1}['a'] == 1", true],
    ["object.?status.orValue('none') == 'none'", true],
    ["object.metadata.name.matches('^a$')", true],
    ["object.spec.message.split(' ')[1] == 'world'", true],
  ];
  for (const [source, expected] of cases) {
    assert.equal(compileMatchCondition(source).run(VARS), expected, source);
  }
});

Deno.test("match conditions: runtime errors, in cel-go's words", () => {
  const failing: [string, string][] = [
    ["object.spec.missing == 1", "no such key: missing"],
    ["object.spec.size < 'a'", "no such overload"],
    ["object.spec.missing == 1 && true", "no such key: missing"],
    ["object.spec.tags[5] == 'x'", "index out of bounds: 5"],
  ];
  for (const [source, message] of failing) {
    assert.throws(() => compileMatchCondition(source).run(VARS), {
      name: "CelRuntimeError",
      message,
    }, source);
  }
  assert.ok(new CelRuntimeError("x") instanceof Error);
});

Deno.test("match conditions: compile errors, in the API server's words", () => {
  assert.throws(() => compileMatchCondition("'x'"), {
    name: "CelCompileError",
    message: "must evaluate to bool but got string",
  });
  assert.throws(() => compileMatchCondition("params.x == 1"), {
    name: "CelCompileError",
    message:
      "compilation failed: ERROR: <input>:1:1: undeclared reference to 'params' (in container '')\n | params.x == 1\n | ^",
  });
  assert.throws(() => compileMatchCondition("request.nope == 1"), {
    name: "CelCompileError",
    message:
      "compilation failed: ERROR: <input>:1:8: undefined field 'nope'\n | request.nope == 1\n | .......^",
  });
  assert.throws(
    () => compileMatchCondition("1 == 'a'"),
    /found no matching overload for '_==_' applied to '\(int, string\)'/,
  );
  for (const source of ["object.", "(true"]) {
    assert.throws(() => compileMatchCondition(source), (error: unknown) => {
      assert.ok(error instanceof CelCompileError, source);
      assert.match(error.message, /^compilation failed: ERROR: <input>:1:/);
      return true;
    });
  }
  assert.throws(
    () =>
      compileMatchCondition(
        "authorizer.group('').resource('x').check('get').allowed()",
      ),
    CelUnsupportedError,
  );
});

Deno.test({
  name:
    "webhooks: matchConditions leave a webhook out when one is false, call it when all are true",
  async fn(): Promise<void> {
    await using f = await fixture();
    await f.configure("Validating", "conditions", [
      f.hook("/record", {
        matchConditions: [
          {
            name: "has-message",
            expression: "has(object.spec) && has(object.spec.message)",
          },
          {
            name: "not-exempt",
            expression:
              "!('exempt' in object.metadata.labels) && request.operation == 'CREATE'",
          },
          {
            name: "anonymous",
            expression: "request.userInfo.username == 'system:anonymous'",
          },
        ],
      }),
    ]);
    assert.equal((await f.send("POST", GREETINGS, greeting("a"))).status, 201);
    assert.equal(
      (await f.send("POST", GREETINGS, greeting("b", {}))).status,
      201,
    );
    assert.equal(
      (await f.send(
        "POST",
        GREETINGS,
        greeting("c", undefined, { exempt: "" }),
      ))
        .status,
      201,
    );
    const made = f.api.object(`${GREETINGS}/a`)!;
    assert.equal(
      (await f.send("PUT", `${GREETINGS}/a`, {
        ...made,
        spec: { message: "x" },
      }))
        .status,
      200,
    );
    assert.deepEqual(f.seen.map((r) => `${r.operation} ${r.name}`), [
      "CREATE a",
    ]);
  },
});

Deno.test({
  name:
    "webhooks: a matchCondition that fails to evaluate refuses the write under Fail and skips the webhook under Ignore",
  async fn(): Promise<void> {
    await using f = await fixture();
    const conditions = [{
      name: "size",
      expression: "object.spec.size > 3",
    }];
    await f.configure("Validating", "erring", [
      f.hook("/record", { matchConditions: conditions }),
    ]);
    const refused = await f.send("POST", GREETINGS, greeting("e"));
    assert.equal(refused.status, 500);
    assert.deepEqual(
      refused.body,
      internalError(
        `failed calling webhook "record.${GROUP}": failed to evaluate match conditions: expression 'size' resulted in error: no such key: size`,
      ),
    );
    const path = `${ADMISSION}/validatingwebhookconfigurations/erring`;
    const now = (await f.send("GET", path)).body as {
      metadata: Record<string, unknown>;
      webhooks: Record<string, unknown>[];
    };
    now.webhooks[0]!.failurePolicy = "Ignore";
    assert.equal((await f.send("PUT", path, now)).status, 200);
    assert.equal((await f.send("POST", GREETINGS, greeting("e"))).status, 201);
    assert.equal(f.seen.length, 0);
    // A false condition wins over an erring one: no error, no call.
    now.webhooks[0]!.failurePolicy = "Fail";
    now.webhooks[0]!.matchConditions = [
      ...conditions,
      { name: "never", expression: "false" },
    ];
    now.metadata = (await f.send("GET", path)).body.metadata as Record<
      string,
      unknown
    >;
    assert.equal((await f.send("PUT", path, now)).status, 200);
    assert.equal((await f.send("POST", GREETINGS, greeting("g"))).status, 201);
    assert.equal(f.seen.length, 0);
  },
});

Deno.test({
  name:
    "webhooks: a matchCondition that does not compile is refused with 422 when configured",
  async fn(): Promise<void> {
    await using f = await fixture();
    const refused = await f.send(
      "POST",
      `${ADMISSION}/validatingwebhookconfigurations`,
      {
        metadata: { name: "unsupported" },
        webhooks: [f.hook("/record", {
          matchConditions: [
            {
              name: "all",
              expression: "authorizer.path('/healthz').check('get').allowed()",
            },
            { name: "broken", expression: "object." },
            { name: "all", expression: "true" },
            { name: "", expression: "" },
          ],
        })],
      },
    );
    assert.equal(refused.status, 422);
    assert.equal(refused.body.reason, "Invalid");
    const causes = (refused.body.details as {
      causes: { field: string; message: string }[];
    }).causes;
    assert.deepEqual(causes.map((c) => c.field), [
      "webhooks[0].matchConditions[0].expression",
      "webhooks[0].matchConditions[1].expression",
      "webhooks[0].matchConditions[2].name",
      "webhooks[0].matchConditions[3].name",
      "webhooks[0].matchConditions[3].expression",
    ]);
    assert.equal(
      causes[0]!.message,
      `Invalid value: "authorizer.path('/healthz').check('get').allowed()": the fake API server does not support this CEL expression (the authorizer variable is outside what it evaluates)`,
    );
    assert.equal(
      causes[1]!.message,
      `Invalid value: "object.": compilation failed: ERROR: <input>:1:8: Syntax error: mismatched input '<EOF>' expecting IDENTIFIER\n | object.\n | .......^`,
    );
    assert.equal(causes[2]!.message, 'Duplicate value: "all"');
    assert.match(
      String(refused.body.message),
      /^ValidatingWebhookConfiguration\.admissionregistration\.k8s\.io "unsupported" is invalid: \[webhooks\[0\]\.matchConditions\[0\]\.expression: Invalid value: /,
    );
  },
});
