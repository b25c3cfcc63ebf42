// The options of controllers a Manager made: the manager owns their
// election's release, and wires the client, the election and the shared
// caches to the metrics once for all of them.
export const managed: WeakSet<object> = new WeakSet();
