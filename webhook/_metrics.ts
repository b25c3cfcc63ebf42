// controller-runtime's webhook metrics, in a registry such as the metrics
// module's Registry.

import type { MetricLabels, MetricsRegistry } from "./types.ts";

/** The three webhook metrics, by controller-runtime's names. */
export interface WebhookMetrics {
  requests: { inc(labels: MetricLabels, by?: number): void };
  latency: { observe(labels: MetricLabels, value: number): void };
  inFlight: {
    inc(labels: MetricLabels, by?: number): void;
    dec(labels: MetricLabels, by?: number): void;
  };
}

const REQUESTS = "controller_runtime_webhook_requests_total";
const LATENCY = "controller_runtime_webhook_latency_seconds";
const IN_FLIGHT = "controller_runtime_webhook_requests_in_flight";

/** The webhook metrics of a registry, made on first use and shared after. */
export function webhookMetrics(registry: MetricsRegistry): WebhookMetrics {
  const requests = (registry.get(REQUESTS) as
    | WebhookMetrics["requests"]
    | undefined) ??
    registry.counter(REQUESTS, {
      help: "Total number of admission requests by HTTP status code.",
      labels: ["webhook", "code"],
    });
  const latency = (registry.get(LATENCY) as
    | WebhookMetrics["latency"]
    | undefined) ??
    registry.histogram(LATENCY, {
      help: "Histogram of the latency of processing admission requests",
      labels: ["webhook"],
    });
  const inFlight = (registry.get(IN_FLIGHT) as
    | WebhookMetrics["inFlight"]
    | undefined) ??
    registry.gauge(IN_FLIGHT, {
      help: "Current number of admission requests being served.",
      labels: ["webhook"],
    });
  return { requests, latency, inFlight };
}
