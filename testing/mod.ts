/**
 * Test helpers: an in-memory Kubernetes API server that answers the way the
 * real one does (served in memory or over HTTP/HTTPS), faults to inject into
 * it, fake time, test certificates and a fake ServiceAccount directory.
 *
 * @module
 */
export * from "./fake_server.ts";
export * from "./fake_time.ts";
export * from "./certs.ts";
export * from "./service_account.ts";
