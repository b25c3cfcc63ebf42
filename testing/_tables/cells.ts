/**
 * The cells of a Table row: what the API server's printers (in
 * `k8s.io/kubernetes/pkg/printers/internalversion`) write for each built-in
 * kind, and the custom resource convertor for a printer column.
 *
 * @module
 */

/** An object as the printers read it: any JSON. */
// deno-lint-ignore no-explicit-any
export type Json = any;

/** A string value, else `""`. */
export function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}

/** The object's `metadata.name`, else `""`. */
export function name(object: Json): string {
  return str(object?.metadata?.name);
}

/** How many keys a map has; 0 for anything else. */
export function count(map: unknown): number {
  return typeof map === "object" && map !== null ? Object.keys(map).length : 0;
}

/**
 * A duration with two or three significant figures, as the API server's
 * `duration.HumanDuration` writes it.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.trunc(days / 365);
  if (hours < 24 * 365 * 8) {
    const d = days % 365;
    return d === 0 ? `${years}y` : `${years}y${d}d`;
  }
  return `${years}y`;
}

/** The age of a timestamp, or `<unknown>` when it is absent. */
export function age(timestamp: unknown, now: number): string {
  const at = typeof timestamp === "string" ? Date.parse(timestamp) : NaN;
  if (Number.isNaN(at) || at <= Date.UTC(1, 0, 1)) return "<unknown>";
  return humanDuration(now - at);
}

/** An array value, else `[]`. */
// deno-lint-ignore no-explicit-any
export function list(value: unknown): any[] {
  return Array.isArray(value) ? value : [];
}

/** The cells of a Pod row, as the API server's `printPod` writes them. */
export function podCells(pod: Json, now: number): unknown[] {
  const spec = pod.spec ?? {};
  const status = pod.status ?? {};
  const conditions = list(status.conditions);
  let restarts = 0;
  let restartableRestarts = 0;
  let total = list(spec.containers).length;
  let ready = 0;
  let lastRestart = 0;
  let lastRestartableRestart = 0;
  const phase = str(status.phase);
  let reason = str(status.reason) || phase;
  for (const condition of conditions) {
    if (
      condition?.type === "PodScheduled" &&
      condition?.reason === "SchedulingGated"
    ) reason = "SchedulingGated";
  }
  const initSpecs = new Map<string, Json>();
  const restartable = (name: string) =>
    initSpecs.get(name)?.restartPolicy === "Always";
  for (const init of list(spec.initContainers)) {
    initSpecs.set(init?.name, init);
    if (init?.restartPolicy === "Always") total++;
  }
  const finishedAt = (c: Json): number => {
    const at = Date.parse(str(c?.lastState?.terminated?.finishedAt));
    return Number.isNaN(at) ? 0 : at;
  };
  let initializing = false;
  const inits = list(status.initContainerStatuses);
  for (let i = 0; i < inits.length; i++) {
    const c = inits[i];
    restarts += c?.restartCount ?? 0;
    if (c?.lastState?.terminated) {
      lastRestart = Math.max(lastRestart, finishedAt(c));
    }
    if (restartable(c?.name)) {
      restartableRestarts += c?.restartCount ?? 0;
      if (c?.lastState?.terminated) {
        lastRestartableRestart = Math.max(
          lastRestartableRestart,
          finishedAt(c),
        );
      }
    }
    const terminated = c?.state?.terminated;
    const waiting = c?.state?.waiting;
    if (terminated && (terminated.exitCode ?? 0) === 0) continue;
    if (restartable(c?.name) && c?.started === true) {
      if (c?.ready) ready++;
      continue;
    }
    if (terminated) {
      reason = terminated.reason
        ? `Init:${terminated.reason}`
        : terminated.signal
        ? `Init:Signal:${terminated.signal}`
        : `Init:ExitCode:${terminated.exitCode ?? 0}`;
    } else if (waiting?.reason && waiting.reason !== "PodInitializing") {
      reason = `Init:${waiting.reason}`;
    } else {
      reason = `Init:${i}/${list(spec.initContainers).length}`;
    }
    initializing = true;
    break;
  }
  const initialized = conditions.some((c) =>
    c?.type === "Initialized" && c?.status === "True"
  );
  if (!initializing || initialized) {
    restarts = restartableRestarts;
    lastRestart = lastRestartableRestart;
    let running = false;
    const containers = list(status.containerStatuses);
    for (let i = containers.length - 1; i >= 0; i--) {
      const c = containers[i];
      restarts += c?.restartCount ?? 0;
      if (c?.lastState?.terminated) {
        lastRestart = Math.max(lastRestart, finishedAt(c));
      }
      const waiting = c?.state?.waiting;
      const terminated = c?.state?.terminated;
      if (waiting?.reason) reason = waiting.reason;
      else if (terminated?.reason) reason = terminated.reason;
      else if (terminated) {
        reason = terminated.signal
          ? `Signal:${terminated.signal}`
          : `ExitCode:${terminated.exitCode ?? 0}`;
      } else if (c?.ready && c?.state?.running) {
        running = true;
        ready++;
      }
    }
    if (reason === "Completed" && running) {
      reason = conditions.some((c) =>
          c?.type === "Ready" && c?.status === "True"
        )
        ? "Running"
        : "NotReady";
    }
  }
  if (pod.metadata?.deletionTimestamp && status.reason === "NodeLost") {
    reason = "Unknown";
  } else if (
    pod.metadata?.deletionTimestamp && phase !== "Succeeded" &&
    phase !== "Failed"
  ) {
    reason = "Terminating";
  }
  const restartText = restarts !== 0 && lastRestart > 0
    ? `${restarts} (${humanDuration(now - lastRestart)} ago)`
    : String(restarts);
  const gates = list(spec.readinessGates);
  let readinessGates = "<none>";
  if (gates.length > 0) {
    let met = 0;
    for (const gate of gates) {
      const condition = conditions.find((c) => c?.type === gate?.conditionType);
      if (condition?.status === "True") met++;
    }
    readinessGates = `${met}/${gates.length}`;
  }
  return [
    name(pod),
    `${ready}/${total}`,
    reason,
    restartText,
    age(pod.metadata?.creationTimestamp, now),
    str(list(status.podIPs)[0]?.ip) || "<none>",
    str(spec.nodeName) || "<none>",
    str(status.nominatedNodeName) || "<none>",
    readinessGates,
  ];
}

/** The cells of a Service row, as the API server's `printService` writes them. */
export function serviceCells(service: Json, now: number): unknown[] {
  const spec = service.spec ?? {};
  // The API server defaults type to ClusterIP and each protocol to TCP.
  const type = str(spec.type) || "ClusterIP";
  const clusterIP = str(list(spec.clusterIPs)[0]) || str(spec.clusterIP) ||
    "<none>";
  const externalIPs = list(spec.externalIPs).map(String);
  let external: string;
  switch (type) {
    case "ClusterIP":
    case "NodePort":
      external = externalIPs.length > 0 ? externalIPs.join(",") : "<none>";
      break;
    case "LoadBalancer": {
      const ingress = [
        ...new Set(
          list(service.status?.loadBalancer?.ingress)
            .map((i) => str(i?.ip) || str(i?.hostname))
            .filter((i) => i !== ""),
        ),
      ].sort();
      const all = [...ingress, ...externalIPs];
      external = all.length > 0 ? all.join(",") : "<pending>";
      break;
    }
    case "ExternalName":
      external = str(spec.externalName);
      break;
    default:
      external = "<unknown>";
  }
  const ports = list(spec.ports).map((p) => {
    const protocol = str(p?.protocol) || "TCP";
    return p?.nodePort > 0
      ? `${p.port}:${p.nodePort}/${protocol}`
      : `${p?.port ?? 0}/${protocol}`;
  }).join(",");
  return [
    name(service),
    type,
    clusterIP,
    external,
    ports || "<none>",
    age(service.metadata?.creationTimestamp, now),
    formatLabels(spec.selector),
  ];
}

/** `labels.FormatLabels`: sorted `k=v` pairs, or `<none>`. */
function formatLabels(labels: unknown): string {
  if (typeof labels !== "object" || labels === null) return "<none>";
  const pairs = Object.entries(labels as Record<string, unknown>)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`);
  return pairs.length > 0 ? pairs.join(",") : "<none>";
}

/** The cells of an Event row, as the API server's `printEvent` writes them. */
export function eventCells(event: Json, now: number): unknown[] {
  let first = age(event.firstTimestamp, now);
  if (!event.firstTimestamp) first = age(event.eventTime, now);
  let last = event.lastTimestamp ? age(event.lastTimestamp, now) : first;
  let count = typeof event.count === "number" ? event.count : 0;
  if (event.series) {
    last = age(event.series.lastObservedTime, now);
    count = event.series.count ?? 0;
  } else if (count === 0) {
    // Singleton events of the events.k8s.io API set no count.
    count = 1;
  }
  const involved = event.involvedObject ?? {};
  const kind = str(involved.kind).toLowerCase();
  const target = involved.name ? `${kind}/${involved.name}` : kind;
  const component = str(event.source?.component) ||
    str(event.reportingComponent);
  const instance = str(event.source?.host) || str(event.reportingInstance);
  return [
    last,
    str(event.type),
    str(event.reason),
    target,
    str(involved.fieldPath),
    instance ? `${component}, ${instance}` : component,
    str(event.message).trim(),
    first,
    count,
    name(event),
  ];
}

/** A custom column's cell, as the API server's CRD convertor makes it. */
export function cell(type: string, value: unknown, now: number): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case "string":
      if (typeof value === "string") return value;
      if (typeof value === "object") return JSON.stringify(value);
      return String(value);
    case "integer":
      return typeof value === "number" ? Math.trunc(value) : null;
    case "number":
      return typeof value === "number" ? value : null;
    case "boolean":
      return typeof value === "boolean" ? value : null;
    case "date": {
      if (typeof value !== "string") return null;
      const at = Date.parse(value);
      return Number.isNaN(at) ? "<invalid>" : humanDuration(now - at);
    }
    default:
      return null;
  }
}
