// client-go's REST client metrics, fed by the client's observer.
import type { Outcome } from "../apiclient/options.ts";
import type { Counter, Histogram, Registry } from "./registry.ts";
import type { CounterSeries, HistogramSeries } from "./types.ts";

/** client-go's buckets of `rest_client_request_duration_seconds`. */
const LATENCY_BUCKETS = [
  0.005,
  0.025,
  0.1,
  0.25,
  0.5,
  1,
  2,
  4,
  8,
  15,
  30,
  60,
];

/** The series one status and method count in. */
interface Bound {
  requests: CounterSeries;
  latency: HistogramSeries;
}

/** The request metrics of every client `Metrics.client` observed. */
export class ClientMetrics {
  readonly requests: Counter<"code" | "method" | "host">;
  readonly latency: Histogram<"verb" | "host">;

  constructor(registry: Registry) {
    this.requests = registry.counter("rest_client_requests_total", {
      help:
        "API requests answered, by status code (<error> when no answer came), method and host.",
      labels: ["code", "method", "host"],
    });
    this.latency = registry.histogram("rest_client_request_duration_seconds", {
      help:
        "Seconds from a request's first send to its final answer (429 waits included), by verb and host.",
      labels: ["verb", "host"],
      buckets: LATENCY_BUCKETS,
    });
  }

  /**
   * Answers the observer of a client of `host`. It keeps the bound series
   * of each status and method it met, so a request costs two lookups.
   */
  observer(host: string): (outcome: Outcome) => void {
    const bound = new Map<string, Bound>();
    return (outcome) => {
      const key = `${outcome.status} ${outcome.method}`;
      let series = bound.get(key);
      if (series === undefined) {
        const method = outcome.method.toUpperCase();
        // client-go's code label for a request with no answer.
        const code = outcome.status === 0 ? "<error>" : String(outcome.status);
        series = {
          requests: this.requests.series({ code, method, host }),
          latency: this.latency.series({ verb: method, host }),
        };
        bound.set(key, series);
      }
      series.requests.inc();
      series.latency.observe(outcome.duration / 1000);
    };
  }
}
