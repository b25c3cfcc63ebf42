// The series of `Metrics.sharder`: the ring's size, objects per shard, and
// what the sharder wrote.
import type { Counter, Gauge, Registry } from "./registry.ts";
import type { SharderCounts, SharderState } from "./types.ts";

const COUNTS: Record<keyof SharderCounts, string> = {
  assigned: "Objects the sharder gave their first member.",
  drains: "Objects the sharder asked their member to give back.",
  moves: "Objects the sharder gave a new member after a drain or a takeover.",
  takeovers: "Member Leases the sharder took over, their member gone.",
  children: "Children the sharder labelled with their owner's shard.",
};

/** The families, made once per registry. */
export class SharderFamilies {
  readonly members: Gauge<"ring">;
  readonly objects: Gauge<"ring" | "shard">;
  readonly counts: Map<keyof SharderCounts, Counter<"ring">> = new Map();

  constructor(registry: Registry) {
    this.members = registry.gauge("shard_ring_members", {
      help: "Live members of the ring, as the leading sharder judges them.",
      labels: ["ring"],
    });
    this.objects = registry.gauge("shard_objects", {
      help:
        'Primaries per member hash (shard="": unassigned), as the leading sharder sees them.',
      labels: ["ring", "shard"],
    });
    for (const [count, help] of Object.entries(COUNTS)) {
      this.counts.set(
        count as keyof SharderCounts,
        registry.counter(`shard_${count}_total`, { help, labels: ["ring"] }),
      );
    }
  }

  /** Reads one sharder into the series (at each scrape). */
  collector(state: SharderState): () => void {
    const ring = state.ring;
    const last: Partial<SharderCounts> = {};
    let shards = new Set<string>();
    return () => {
      this.members.set({ ring }, state.members().length);
      const now = state.shards();
      for (const shard of shards) {
        if (!now.has(shard)) this.objects.remove({ ring, shard });
      }
      for (const [shard, n] of now) this.objects.set({ ring, shard }, n);
      shards = new Set(now.keys());
      for (const [count, counter] of this.counts) {
        const value = state.counts[count];
        counter.inc({ ring }, value - (last[count] ?? 0));
        last[count] = value;
      }
    };
  }
}
