/**
 * Judging a chaos seed from the real API server's audit log (RequestResponse
 * level): the accepted writes of the replicas, ordered by the
 * resourceVersion each produced (etcd's revision: one order over every
 * object), never by timestamps.
 *
 * @module
 */

import { OPERATOR } from "../../examples/greeting.ts";
import type { Write } from "../../shard/_chaos_test_util.ts";

/** One line of the audit log, the fields judged. */
interface AuditEvent {
  stage: string;
  verb: string;
  user: { username: string };
  objectRef?: { resource?: string; name?: string; namespace?: string };
  responseStatus?: { code?: number };
  responseObject?: {
    metadata?: { resourceVersion?: string };
    spec?: { holderIdentity?: string };
  };
  stageTimestamp: string;
}

const WRITES = new Set(["create", "update", "patch", "delete"]);

/** What the audit log shows of one seed. */
export interface Judged {
  writes: number;
  acquisitions: number;
  violations: string[];
  /** Longest gap between a holder's last renewal and the next acquisition. */
  worstFailoverMs: number;
  /** The Lease's holders in order, with the seconds since the first write. */
  holders: string[];
  /** Writes that changed nothing (they answered an existing version). */
  noops: number;
}

/**
 * Judges the accepted writes of the replicas in `namespace` (and their
 * Lease there), ordered by the resourceVersion each produced.
 */
export function judge(
  lines: readonly string[],
  namespace: string,
  leaseName: string = OPERATOR,
): Judged {
  const mine = `"namespace":"${namespace}"`;
  const writes = lines.filter((l) => l.includes(mine)).map((l) =>
    JSON.parse(l) as AuditEvent
  ).filter((e) =>
    e.stage === "ResponseComplete" && WRITES.has(e.verb) &&
    e.user.username.startsWith("replica-") &&
    e.objectRef?.namespace === namespace &&
    (e.responseStatus?.code ?? 0) < 300 &&
    e.responseObject?.metadata?.resourceVersion !== undefined
  ).map((e) => ({
    e,
    rv: BigInt(e.responseObject!.metadata!.resourceVersion!),
  })).sort((a, b) => (a.rv < b.rv ? -1 : a.rv > b.rv ? 1 : 0));
  let holder: string | undefined;
  let identity: string | undefined;
  let renewedAt = 0;
  let acquisitions = 0;
  let noops = 0;
  let worst = 0;
  const violations: string[] = [];
  const holders: string[] = [];
  // A write that changes nothing (a server-side apply of the same fields)
  // answers the object's current resourceVersion: it produced none, so it
  // is not judged (its rv is that of the write that did).
  const produced = new Set<string>();
  const t0 = writes.length ? Date.parse(writes[0]!.e.stageTimestamp) : 0;
  for (const { e, rv } of writes) {
    const ref = e.objectRef!;
    const key = `${ref.resource}/${ref.namespace}/${ref.name}@${rv}`;
    if (ref.name !== undefined && produced.has(key)) {
      noops++;
      continue;
    }
    produced.add(key);
    const user = e.user.username;
    const at = Date.parse(e.stageTimestamp);
    const lease = e.objectRef?.resource === "leases" &&
      e.objectRef.name === leaseName;
    const holds = lease ? e.responseObject?.spec?.holderIdentity : undefined;
    if (holds) {
      // An acquisition is a new identity (a replaced pod of the same
      // replica has one too); writes are told apart by user (token).
      if (identity !== holds) {
        holders.push(`${holds}@${((at - t0) / 1000).toFixed(1)}s`);
        acquisitions++;
        if (identity !== undefined) worst = Math.max(worst, at - renewedAt);
        identity = holds;
        holder = user;
      }
      renewedAt = at;
      continue;
    }
    if (lease) continue; // A release by the holder.
    if (user !== holder) {
      violations.push(
        `${user} ${e.verb} ${e.objectRef?.resource}/${e.objectRef?.name} at rv ${rv} while ${holder} held the Lease`,
      );
    }
  }
  return {
    writes: writes.length - noops,
    acquisitions,
    violations,
    worstFailoverMs: worst,
    holders,
    noops,
  };
}

/** One write of the audit log, as the fake's sharding judge takes it. */
interface LoggedWrite {
  stage: string;
  verb: string;
  requestURI: string;
  user: { username: string };
  objectRef?: { namespace?: string };
  responseStatus?: { code?: number };
  requestObject?: unknown;
  responseObject?: { metadata?: { resourceVersion?: string } };
}

const METHODS: Record<string, string> = {
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
};

/**
 * The writes in `namespace` from the audit log, in the shape of the fake
 * chaos family's write log (`shard/_chaos_test_util.ts`), so that its
 * `safety` judges the real server's: the sender (a replica's user, else
 * `user`), the method, path, query and body as sent, the status, and the
 * resourceVersion the write produced (`NaN` when refused).
 */
export function auditWrites(
  lines: readonly string[],
  namespace: string,
): Write[] {
  const mine = `"namespace":"${namespace}"`;
  return lines.filter((l) => l.includes(mine)).map((l) =>
    JSON.parse(l) as LoggedWrite
  ).filter((e) =>
    e.stage === "ResponseComplete" && METHODS[e.verb] !== undefined &&
    e.objectRef?.namespace === namespace
  ).map((e) => {
    const url = new URL(e.requestURI, "https://audit");
    const status = e.responseStatus?.code ?? 0;
    const rv = e.responseObject?.metadata?.resourceVersion;
    return {
      who: e.user.username.startsWith("replica-") ? e.user.username : "user",
      method: METHODS[e.verb]!,
      path: url.pathname,
      query: url.searchParams,
      body: e.requestObject,
      status,
      rv: status < 300 && rv !== undefined ? Number(rv) : NaN,
    };
  });
}

/** A member Lease taken over by the sharder, as the audit log shows it. */
export interface Takeover {
  /** The member Lease's name. */
  lease: string;
  /** From the member's last accepted renewal to the takeover, in ms. */
  gapMs: number;
}

/**
 * The takeovers of member Leases in `namespace` (holder
 * `shard.liken.dev/taken-by=…`), ordered by resourceVersion, each with the
 * time since the member's last renewal: the sharded family's failover time.
 */
export function takeovers(
  lines: readonly string[],
  namespace: string,
): Takeover[] {
  const mine = `"namespace":"${namespace}"`;
  const leases = lines.filter((l) => l.includes(mine)).map((l) =>
    JSON.parse(l) as LoggedWrite & AuditEvent
  ).filter((e) =>
    e.stage === "ResponseComplete" && WRITES.has(e.verb) &&
    e.objectRef?.resource === "leases" &&
    e.objectRef.namespace === namespace &&
    (e.responseStatus?.code ?? 0) < 300 &&
    e.responseObject?.metadata?.resourceVersion !== undefined
  ).sort((a, b) =>
    Number(
      BigInt(a.responseObject!.metadata!.resourceVersion!) -
        BigInt(b.responseObject!.metadata!.resourceVersion!),
    )
  );
  const renewed = new Map<string, number>();
  const out: Takeover[] = [];
  for (const e of leases) {
    const name = e.objectRef!.name!;
    const holder = e.responseObject?.spec?.holderIdentity ?? "";
    const at = Date.parse(e.stageTimestamp);
    if (holder.startsWith("shard.liken.dev/taken-by=")) {
      const last = renewed.get(name);
      if (last !== undefined) out.push({ lease: name, gapMs: at - last });
      renewed.delete(name);
    } else if (holder !== "") renewed.set(name, at);
  }
  return out;
}

/**
 * The lines of the audit log at `path` and of its rotated backups
 * (kube-apiserver rotates it at 100 MB when `--audit-log-maxsize` is unset,
 * lumberjack's default, as
 * `<name>-<timestamp>.log` beside it; at the RequestResponse level a batch
 * of chaos seeds writes that much), oldest first.
 */
export async function readAudit(path: string): Promise<string[]> {
  const slash = path.lastIndexOf("/");
  const dir = path.slice(0, slash);
  const name = path.slice(slash + 1).replace(/\.log$/, "");
  const backup = new RegExp(`^${name}-\\d{4}-\\d{2}-\\d{2}T[\\d.-]+\\.log$`);
  const backups: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (backup.test(entry.name)) backups.push(entry.name);
  }
  const lines: string[] = [];
  for (const file of [...backups.sort(), path.slice(slash + 1)]) {
    const text = await Deno.readTextFile(`${dir}/${file}`);
    for (const line of text.split("\n")) if (line) lines.push(line);
  }
  return lines;
}

/** A write the server answered as accepted, as its sender saw the answer. */
export interface Answered extends Write {
  /** When the answer came (`Date.now()`). */
  at: number;
}

const SENT_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

/**
 * A `fetch` that records in `into` every write answered 2xx with an object
 * (method, path, query, the body as sent, status, the answer's
 * resourceVersion, time), as `who` sent it. The server's own answers: as
 * authoritative as the audit log for "accepted" (see
 * {@linkcode withAnswered}). The answer is read from a clone after the
 * caller has it; `pending` holds those reads, for the judge to await.
 * A write that got no answer at all goes to `unanswered`, as a line.
 */
export function recordingFetch(
  send: typeof fetch,
  who: string,
  into: Answered[],
  pending: Promise<unknown>[],
  unanswered?: string[],
): typeof fetch {
  return async (input, init) => {
    const method = (init?.method ?? "GET").toUpperCase();
    const url = new URL(String(input));
    const response = await send(input, init).catch((error) => {
      // Sent, and no answer came: etcd may have committed it all the same
      // (neither the audit log nor the sender then knows its version).
      if (SENT_METHODS.has(method)) {
        unanswered?.push(
          `${Date.now()} [${who}] ${method} ${url.pathname}${url.search}: no answer (${
            (error as Error)?.name
          })`,
        );
      }
      throw error;
    });
    if (!SENT_METHODS.has(method) || response.status >= 300) return response;
    const sent = init?.body;
    const text = typeof sent === "string"
      ? sent
      : sent instanceof Uint8Array
      ? new TextDecoder().decode(sent)
      : undefined;
    pending.push(
      response.clone().json().then((answer) => {
        const rv = answer?.metadata?.resourceVersion;
        if (typeof rv !== "string") return;
        into.push({
          who,
          method,
          path: url.pathname,
          query: url.searchParams,
          body: text === undefined ? undefined : JSON.parse(text),
          status: response.status,
          rv: Number(rv),
          at: Date.now(),
        });
      }).catch(() => {}),
    );
    return response;
  };
}

/** The object a write is about, `resource/name` (a create's from its body). */
function objectOf(w: Write): string | undefined {
  const at = w.path.indexOf("/namespaces/");
  if (at === -1) return undefined;
  const [, , resource, name] = w.path.slice(at).split("/");
  const named = name ??
    (w.body as { metadata?: { name?: string } } | undefined)?.metadata?.name;
  return resource === undefined || named === undefined
    ? undefined
    : `${resource}/${named}`;
}

/**
 * The audit log's writes plus each write its sender saw answered as
 * accepted that the audit log lacks (matched by object and the
 * resourceVersion of the answer), marked `unaudited`, and those in
 * `unaudited` too, for the run to report: never silently.
 *
 * Whether the audit log can lack one (kube-apiserver v1.37 sources,
 * k8s.io/apiserver v0.37.2): `WithAudit` (pkg/endpoints/filters/audit.go)
 * processes the ResponseComplete stage in a defer after
 * `handler.ServeHTTP` returned; the log backend's `logEvent`
 * (plugin/pkg/audit/log/backend.go) writes the line to the file at once,
 * as the log's default mode is blocking (`NewAuditOptions`,
 * pkg/server/options/audit.go; only `batch` buffers events). The answer,
 * though, leaves later: golang.org/x/net/http2 (server.go, which
 * kube-apiserver's `http2.ConfigureServer` uses) buffers a handler's writes
 * 4 KiB at a time (`handlerChunkWriteSize`) and ends the stream only in
 * `runHandler`'s `handlerDone`, after the whole filter chain returned. So
 * a sender has a whole 2xx answer only after its line reached the kernel,
 * which a SIGKILL of kube-apiserver does not lose: a SIGKILL cannot make
 * this list non-empty. What it can do is kill a write committed to etcd
 * before its answer and line: neither the sender nor the log has it (the
 * recording fetch keeps such sends as lines). This merge stays as a guard
 * against a line the backend failed to write (`ignoreErrorsBackend`
 * drops it) and as a check of that reading.
 */
export function withAnswered(
  audit: readonly Write[],
  answered: readonly Answered[],
): { writes: Write[]; unaudited: Answered[] } {
  const logged = new Set(
    audit.filter((w) => w.status < 300 && !isNaN(w.rv)).map((w) =>
      `${objectOf(w)}@${w.rv}`
    ),
  );
  const unaudited = answered.filter((w) =>
    w.status < 300 && !isNaN(w.rv) && !logged.has(`${objectOf(w)}@${w.rv}`)
  );
  return {
    writes: [
      ...audit,
      ...unaudited.map(({ at: _at, ...w }) => ({ ...w, unaudited: true })),
    ],
    unaudited,
  };
}
