// The one logger: its levels and fields, klog's JSON and text lines (golden,
// on fake time), redaction, and that no output failure reaches the caller.
import assert from "node:assert/strict";
import { installFakeTime } from "../testing/mod.ts";
import {
  discardLogger,
  formatJson,
  formatText,
  jsonLogger,
  type Logger,
  loggerOf,
  type LogRecord,
  sinkLogger,
  textLogger,
} from "./log.ts";

const NOW = Date.parse("2030-01-02T03:04:05.678Z");

/** The caller the logger names for a line written on `error`'s line. */
function callerAt(error: Error): string {
  const frame = error.stack!.split("\n")[1]!;
  const line = /:(\d+):\d+\)?$/.exec(frame)![1];
  return `_internal/log_test.ts:${line}`;
}

/** The lines of one scripted run of a logger, callers named. */
function script(
  make: (write: (line: string) => void) => Logger,
): { lines: string[]; callers: string[] } {
  const lines: string[] = [];
  const callers: string[] = [];
  const logger = make((line) => lines.push(line)).with({
    controller: "greeting",
  });
  const pass = logger.with({
    namespace: "default",
    name: "hello",
    reconcileID: "5d0c",
    attempt: 2,
  });
  // Each call and the Error naming its line share one line of source.
  callers.push(callerAt((pass.info("Created the ConfigMap"), new Error())));
  callers.push(callerAt((pass.v(1).info("Detail", { n: 1 }), new Error())));
  pass.v(3).info("Not written: verbosity 3 is above 2");
  callers.push(callerAt((pass.v(2).info("Debug", { ok: true }), new Error())));
  const failure = new TypeError("etcd is sad");
  callers.push(
    callerAt((pass.error(failure, "Reconciler error"), new Error())),
  );
  return { lines, callers };
}

Deno.test("log: JSON lines are klog's: ts in seconds, caller, msg, v or err, then the fields in order", () => {
  using _time = installFakeTime({ now: NOW });
  const { lines, callers } = script((write) =>
    jsonLogger({ verbosity: 2, write })
  );
  const head = (i: number): string =>
    `{"ts":1893553445.678,"caller":"${callers[i]}"`;
  const object =
    `"controller":"greeting","namespace":"default","name":"hello","reconcileID":"5d0c","attempt":2`;
  assert.deepEqual(lines, [
    `${head(0)},"msg":"Created the ConfigMap","v":0,${object}}`,
    `${head(1)},"msg":"Detail","v":1,${object},"n":1}`,
    `${head(2)},"msg":"Debug","v":2,${object},"ok":true}`,
    `${head(3)},"msg":"Reconciler error","err":"etcd is sad",${object}}`,
  ]);
  // The caller is this file and the line of each call.
  assert.match(callers[0]!, /^_internal\/log_test\.ts:\d+$/);
  assert.notEqual(callers[0], callers[1]);
  for (const line of lines) assert.doesNotMatch(line, /"level"/);
});

Deno.test("log: text lines are klog's: I or E, date and time, caller, quoted msg, err, key=value", () => {
  using _time = installFakeTime({ now: NOW });
  const { lines, callers } = script((write) =>
    textLogger({ verbosity: 2, write })
  );
  const object =
    `controller="greeting" namespace="default" name="hello" reconcileID="5d0c" attempt=2`;
  assert.deepEqual(lines, [
    `I0102 03:04:05.678000 ${callers[0]}] "Created the ConfigMap" ${object}`,
    `I0102 03:04:05.678000 ${callers[1]}] "Detail" ${object} n=1`,
    `I0102 03:04:05.678000 ${callers[2]}] "Debug" ${object} ok=true`,
    `E0102 03:04:05.678000 ${
      callers[3]
    }] "Reconciler error" err="etcd is sad" ${object}`,
  ]);
});

Deno.test("log: verbosity gates info lines only; v() adds up; enabled() says so", () => {
  const records: LogRecord[] = [];
  const logger = sinkLogger((record) => records.push(record));
  assert.equal(logger.enabled(), true);
  assert.equal(logger.v(1).enabled(), false);
  logger.v(1).info("hidden");
  logger.v(1).error(new Error("x"), "Errors pass any verbosity");
  const verbose = sinkLogger((record) => records.push(record), {
    verbosity: 3,
  });
  verbose.v(1).v(2).info("At 3");
  verbose.v(2).v(2).info("At 4: hidden");
  verbose.v(-5).info("A negative level is 0");
  assert.deepEqual(records.map((r) => [r.msg, r.v]), [
    ["Errors pass any verbosity", undefined],
    ["At 3", 3],
    ["A negative level is 0", 0],
  ]);
  // The error keeps its class; a line's fields override the logger's.
  const thrown = new RangeError("r");
  const derived = sinkLogger((record) => records.push(record))
    .with({ a: 1, b: 1 });
  derived.error(thrown, "Failed", { b: 2 });
  assert.equal(records.at(-1)!.err, thrown);
  assert.deepEqual(records.at(-1)!.fields, { a: 1, b: 2 });
});

Deno.test("log: no credential is written: secret-named fields, Bearer and Basic values in any text, JSON-escaped too", () => {
  const token = "eyJhbGciOiJSUzI1NiJ9.c2VjcmV0";
  const lines: string[] = [];
  const loggers = [
    jsonLogger({ write: (line) => lines.push(line) }),
    textLogger({ write: (line) => lines.push(line) }),
  ];
  for (const logger of loggers) {
    logger.info(`Sent Authorization: Bearer ${token}`, {
      token,
      clientPassword: "hunter22hunter22",
      header: `Bearer ${token}`,
      echoed: { body: `{"auth":"Bearer ${token.replace(".", "\\u002e")}"}` },
    });
    logger.error(
      new Error(`401 for Basic dXNlcjpwYXNzd29yZA==`),
      "Request failed",
    );
  }
  assert.equal(lines.length, 4);
  for (const line of lines) {
    assert.doesNotMatch(line, /eyJhbGci|c2VjcmV0|hunter22|dXNlcjpw/, line);
    assert.match(line, /\[redacted\]/, line);
  }
  assert.match(
    lines[0]!,
    /"token":"\[redacted\]","clientPassword":"\[redacted\]"/,
  );
});

Deno.test("log: values of any kind are written; a throwing output or user logger never reaches the caller", () => {
  using _time = installFakeTime({ now: NOW });
  const record: LogRecord = {
    time: NOW,
    caller: undefined,
    msg: "Values",
    v: 0,
    err: undefined,
    fields: {
      big: 10n,
      missing: undefined,
      nothing: null,
      error: new Error("inner"),
      list: [1, "two"],
      cyclic: (() => {
        const o: Record<string, unknown> = {};
        o.self = o;
        return o;
      })(),
    },
  };
  assert.equal(
    formatJson(record),
    '{"ts":1893553445.678,"msg":"Values","v":0,"big":"10","missing":null,"nothing":null,"error":"inner","list":[1,"two"],"cyclic":"[object Object]"}',
  );
  assert.equal(
    formatText(record),
    'I0102 03:04:05.678000 ?] "Values" big="10" missing=null nothing=null error="inner" list=[1,"two"] cyclic="[object Object]"',
  );
  const broken = sinkLogger(() => {
    throw new Error("the sink broke");
  });
  broken.info("Dropped");
  broken.error(new Error("x"), "Dropped");
  const hostile: Logger = {
    info: () => {
      throw new Error("info broke");
    },
    error: () => {
      throw new Error("error broke");
    },
    v: () => {
      throw new Error("v broke");
    },
    with: () => {
      throw new Error("with broke");
    },
    enabled: () => {
      throw new Error("enabled broke");
    },
  };
  const guarded = loggerOf(hostile, { controller: "x" });
  guarded.info("Nothing thrown");
  guarded.v(1).error(new Error("x"), "Nothing thrown");
  assert.equal(guarded.enabled(), false);
  assert.equal(discardLogger().v(3).with({}).enabled(), false);
});

Deno.test("log: an object given no logger writes its errors, not its info lines, to console.error as text", () => {
  using _time = installFakeTime({ now: NOW });
  const printed: unknown[][] = [];
  // deno-lint-ignore no-console -- the test reads the default error output.
  const original = console.error;
  // deno-lint-ignore no-console -- as above.
  console.error = (...args: unknown[]): void => void printed.push(args);
  try {
    const logger = loggerOf(undefined, { collection: "default/configmaps" });
    logger.info("Not written");
    logger.error(new Error("gone"), "Watch failed");
  } finally {
    // deno-lint-ignore no-console -- as above.
    console.error = original;
  }
  assert.equal(printed.length, 1);
  assert.match(
    String(printed[0]![0]),
    /^E0102 03:04:05\.678000 _internal\/log_test\.ts:\d+\] "Watch failed" err="gone" collection="default\/configmaps"$/,
  );
});
