/**
 * The example operator for a real cluster: in a pod it uses the pod's
 * ServiceAccount; elsewhere the kubeconfig (`KUBECONFIG`, else
 * `~/.kube/config`). On SIGTERM or SIGINT it stops its work, writes its
 * queued Events, and releases its Lease, in that order.
 *
 * Environment:
 * - `POD_NAME`, `POD_NAMESPACE`: the pod (the Deployment sets both from the
 *   downward API). Outside a pod the name defaults to `local`, and the
 *   namespace to the kubeconfig context's.
 * - `WATCH_NAMESPACE`: watch one namespace only; default all.
 * - `WEBHOOK_CERT_DIR`: the directory of `tls.crt` and `tls.key` (the
 *   mounted Secret of `manifests/webhooks.yaml`'s Certificate); when set,
 *   the Greeting webhooks (`webhooks.ts`) are served on `0.0.0.0:9443`,
 *   by every copy, leading or not, and the certificate is reloaded when
 *   the kubelet swaps the Secret.
 *
 * It serves `/healthz`, `/readyz` and `/metrics` on `0.0.0.0:8080` (the
 * Deployment's probes); a copy that waits for the Lease is ready too. It
 * logs JSON lines to stderr as Kubernetes components do (klog's format).
 *
 * In a pod (see README.md for `deno compile`):
 * `--allow-net=kubernetes.default.svc:443,0.0.0.0:8080,0.0.0.0:9443,127.0.0.1
 * --allow-read=/var/run/secrets/kubernetes.io/serviceaccount,/tmp/k8s-webhook-server/serving-certs
 * --allow-env=KUBERNETES_SERVICE_HOST,KUBERNETES_SERVICE_PORT,POD_NAME,POD_NAMESPACE,WATCH_NAMESPACE,WEBHOOK_CERT_DIR`.
 *
 * @module
 */
import { autoClient } from "../kubeconfig/mod.ts";
import { Metrics } from "../metrics/mod.ts";
import { REQUEST_TIMEOUT } from "../election/mod.ts";
import { type ManagerTask, stopOnSignals } from "../controller/mod.ts";
import { jsonLogger } from "../log/mod.ts";
import { WebhookServer } from "../webhook/mod.ts";
import { operatorManager } from "./operator.ts";
import { greetingWebhooks } from "./webhooks.ts";

const logger = jsonLogger();

function env(name: string): string | undefined {
  try {
    return Deno.env.get(name) || undefined;
  } catch {
    return undefined; // not granted: treated as unset
  }
}

using client = await autoClient({
  timeout: REQUEST_TIMEOUT,
  // In a pod: a name the binary's --allow-net can list ahead of time.
  inClusterServer: "https://kubernetes.default.svc:443",
});
const pod = env("POD_NAME") ?? "local";
const leaseNamespace = env("POD_NAMESPACE") ?? client.defaultNamespace ??
  "default";
const namespace = env("WATCH_NAMESPACE");
const certDir = env("WEBHOOK_CERT_DIR");
logger.info("Starting", { server: client.server, leaseNamespace, namespace });

const metrics = new Metrics();
// The webhooks on every copy, leading or not: the Service sends to any
// ready pod.
const webhooks: ManagerTask = {
  name: "webhooks",
  run: (signal) =>
    new WebhookServer({
      webhooks: greetingWebhooks(),
      certFile: `${certDir}/tls.crt`,
      keyFile: `${certDir}/tls.key`,
      registry: metrics.registry,
      logger,
      signal,
    }).done,
};

// The Manager serves the probes from the start (a waiting copy is alive and
// ready), runs the tasks, takes the Lease and stops in order on SIGTERM.
const operator = operatorManager(client, {
  pod,
  leaseNamespace,
  metrics,
  probes: {},
  tasks: certDir === undefined ? [] : [webhooks],
  ...(namespace ? { namespace } : {}),
  logger,
});
using _signals = stopOnSignals(operator, {
  stopping: () => logger.info("Signal received: stopping"),
});
await operator.done;
