// The sharded family's judge on hand-written audit lines: the audit log's
// writes, turned into the fake family's write log, are judged by its
// `safety` (a write outside the writer's epoch is caught; a forced move
// needs the takeover first), and a takeover's gap is measured.
import assert from "node:assert/strict";
import {
  type Answered,
  auditWrites,
  readAudit,
  recordingFetch,
  takeovers,
  withAnswered,
} from "./_audit.ts";
import { safety } from "../../shard/_chaos_test_util.ts";
import { memberHash, shardLabel } from "../../shard/mod.ts";

const NS = "n";
const LABEL = shardLabel("greeting");
const SHAPE = {
  namespace: NS,
  primary: "greetings",
  child: "configmaps",
  ownerOf: (child: string) => child.replace(/-greeting$/, ""),
};

function line(
  user: string,
  rv: number,
  verb: string,
  uri: string,
  body: unknown,
  at = 0,
  holder?: string,
): string {
  const [, resource, name] =
    /\/namespaces\/n\/([a-z]+)(?:\/([^/?]+))?/.exec(uri) ?? [];
  return JSON.stringify({
    stage: "ResponseComplete",
    verb,
    requestURI: uri,
    user: { username: user },
    objectRef: { resource, name, namespace: NS },
    responseStatus: { code: 200 },
    requestObject: body,
    responseObject: {
      metadata: { resourceVersion: String(rv) },
      ...(holder === undefined ? {} : { spec: { holderIdentity: holder } }),
    },
    stageTimestamp: new Date(at).toISOString(),
  });
}

const G = "/apis/demo.liken.dev/v1alpha1/namespaces/n/greetings/g0";
const CM = "/api/v1/namespaces/n/configmaps/g0-greeting";
const LEASE = "/apis/coordination.k8s.io/v1/namespaces/n/leases/greeting-";
const assign = (rv: number, to: string): string =>
  line(
    "replica-2",
    rv,
    "patch",
    `${G}?fieldManager=greeting-sharder&force=true`,
    { metadata: { name: "g0", labels: { [LABEL]: memberHash(to) } } },
  );
const replicas = new Map(
  ["replica-0", "replica-1", "replica-2"].map((n) => [n, n]),
);

Deno.test("the audit judge catches a write outside the writer's epoch", () => {
  const lines = [
    assign(10, "replica-0"),
    line("replica-0", 11, "patch", `${CM}?fieldManager=greeting`, {}),
    line("replica-1", 12, "patch", `${CM}?fieldManager=greeting`, {}),
    line("someone", 13, "update", G, {}),
  ];
  const writes = auditWrites(lines, NS);
  assert.deepEqual(writes.map((w) => [w.who, w.method, w.rv]), [
    ["replica-2", "PATCH", 10],
    ["replica-0", "PATCH", 11],
    ["replica-1", "PATCH", 12],
    ["user", "PUT", 13],
  ]);
  const violations = safety({ replicas, writes, intervals: [] }, SHAPE);
  assert.equal(violations.length, 1);
  assert.match(violations[0]!, /n\/g0: a write outside replica-1's epochs/);
});

Deno.test("the audit judge needs a takeover before a forced move", () => {
  const member = `greeting-${memberHash("replica-0")}`;
  const forced = [
    assign(10, "replica-0"),
    assign(20, "replica-1"),
  ];
  assert.equal(
    safety({ replicas, writes: auditWrites(forced, NS), intervals: [] }, SHAPE)
      .length,
    1,
  );
  const taken = [
    line(
      "replica-0",
      5,
      "update",
      `${LEASE}${memberHash("replica-0")}`,
      {
        spec: { holderIdentity: "replica-0" },
      },
      1_000,
      "replica-0",
    ),
    assign(10, "replica-0"),
    line(
      "replica-2",
      15,
      "update",
      `${LEASE}${memberHash("replica-0")}`,
      {
        spec: { holderIdentity: "shard.liken.dev/taken-by=replica-2" },
      },
      31_500,
      "shard.liken.dev/taken-by=replica-2",
    ),
    assign(20, "replica-1"),
  ];
  assert.deepEqual(
    safety({ replicas, writes: auditWrites(taken, NS), intervals: [] }, SHAPE),
    [],
  );
  assert.deepEqual(takeovers(taken, NS), [{ lease: member, gapMs: 30_500 }]);
});

Deno.test("the audit log is read with its rotated backups, oldest first", async () => {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/audit.log`, "c\nd\n");
    await Deno.writeTextFile(`${dir}/audit-2026-12-05T15-00-00.000.log`, "b\n");
    await Deno.writeTextFile(`${dir}/audit-2026-12-05T14-00-00.000.log`, "a\n");
    await Deno.writeTextFile(`${dir}/audit-no-watch-cache.log`, "x\n");
    assert.deepEqual(await readAudit(`${dir}/audit.log`), ["a", "b", "c", "d"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** A write its sender saw answered (`status`, the answer's `rv`). */
const answered = (
  who: string,
  rv: number,
  method: string,
  uri: string,
  body: unknown,
  status = 200,
): Answered => {
  const url = new URL(uri, "https://x");
  return {
    who,
    method,
    path: url.pathname,
    query: url.searchParams,
    body,
    status,
    rv,
    at: 0,
  };
};
const ACK = { metadata: { labels: { [LABEL]: null } } };
const MOVED = [
  assign(10, "replica-0"),
  line("replica-0", 11, "patch", `${CM}?fieldManager=greeting`, {}),
  // replica-0's acknowledgement at rv 12 is missing from this audit log.
  assign(13, "replica-1"),
  line("replica-1", 14, "patch", `${CM}?fieldManager=greeting`, {}),
];

Deno.test("a write answered 200 but absent from the audit log is judged, and reported", () => {
  const logged = auditWrites(MOVED, NS);
  assert.equal(
    safety({ replicas, writes: logged, intervals: [] }, SHAPE).length,
    1,
  );
  const { writes, unaudited } = withAnswered(logged, [
    answered("replica-0", 11, "PATCH", `${CM}?fieldManager=greeting`, {}),
    answered("replica-0", 12, "PATCH", `${G}?fieldManager=greeting`, ACK),
  ]);
  // Only the one the audit log lacks is added, marked.
  assert.deepEqual(unaudited.map((w) => w.rv), [12]);
  assert.deepEqual(
    writes.filter((w) => w.unaudited).map((w) => [w.who, w.rv]),
    [["replica-0", 12]],
  );
  assert.equal(writes.length, logged.length + 1);
  assert.deepEqual(safety({ replicas, writes, intervals: [] }, SHAPE), []);
});

Deno.test("writes seen by their senders never mask a write outside the epochs", () => {
  const logged = auditWrites(MOVED, NS);
  const judged = (seen: Answered[]): string[] =>
    safety(
      { replicas, writes: withAnswered(logged, seen).writes, intervals: [] },
      SHAPE,
    );
  // An acknowledgement refused (409), or accepted only after the move,
  // excuses nothing.
  assert.match(
    judged([
      answered(
        "replica-0",
        12,
        "PATCH",
        `${G}?fieldManager=greeting`,
        ACK,
        409,
      ),
    ]).join(),
    /moved from replica-0 without its acknowledgement/,
  );
  assert.match(
    judged([
      answered("replica-0", 15, "PATCH", `${G}?fieldManager=greeting`, ACK),
    ]).join(),
    /moved from replica-0 without its acknowledgement/,
  );
  // A write outside the epochs that only its sender saw is a violation,
  // said to be absent from the audit log; one the audit log has stays one.
  const outside = judged([
    answered("replica-0", 12, "PATCH", `${G}?fieldManager=greeting`, ACK),
    answered("replica-2", 16, "PATCH", `${CM}?fieldManager=greeting`, {}),
  ]);
  assert.deepEqual(outside.length, 1);
  assert.match(
    outside[0]!,
    /outside replica-2's epochs .*at 16 \(answered, absent from the audit log\)/,
  );
  const inLog = safety({
    replicas,
    writes: withAnswered(
      auditWrites([
        ...MOVED,
        line("replica-2", 16, "patch", `${CM}?fieldManager=greeting`, {}),
      ], NS),
      [answered("replica-0", 12, "PATCH", `${G}?fieldManager=greeting`, ACK)],
    ).writes,
    intervals: [],
  }, SHAPE);
  assert.equal(inLog.length, 1);
  assert.match(inLog[0]!, /outside replica-2's epochs .*at 16$/);
});

Deno.test("the recording fetch keeps each write answered 2xx, with its answer's version", async () => {
  const into: Answered[] = [];
  const pending: Promise<unknown>[] = [];
  const unanswered: string[] = [];
  const answers = [
    () => Response.json({ metadata: { resourceVersion: "7" } }),
    () => Response.json({ kind: "Status" }, { status: 409 }),
    () => Response.json({ metadata: { resourceVersion: "8" } }),
    () => {
      throw new TypeError("connection reset");
    },
  ];
  let n = 0;
  const send = recordingFetch(
    () => Promise.resolve().then(() => answers[n++]!()),
    "replica-0",
    into,
    pending,
    unanswered,
  );
  const patch = { method: "PATCH", body: JSON.stringify(ACK) };
  const url = `https://x${G}?fieldManager=greeting`;
  assert.equal((await send(url, patch)).status, 200);
  assert.equal((await send(url, patch)).status, 409);
  // A read is no write.
  assert.equal((await send(url, { method: "GET" })).status, 200);
  await assert.rejects(send(url, patch), TypeError);
  await Promise.all(pending);
  assert.deepEqual(
    into.map((
      w,
    ) => [
      w.who,
      w.method,
      w.path,
      w.query.get("fieldManager"),
      w.status,
      w.rv,
      w.body,
    ]),
    [["replica-0", "PATCH", G, "greeting", 200, 7, ACK]],
  );
  assert.equal(unanswered.length, 1);
  assert.match(
    unanswered[0]!,
    /\[replica-0\] PATCH .*g0\?fieldManager=greeting: no answer \(TypeError\)/,
  );
});
