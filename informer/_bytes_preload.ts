// Run before a test file (`deno test --preload=informer/_bytes_preload.ts`):
// every collection that names no storage keeps bytes, so the gate runs the
// informer, cache, memo, controller and sharding tests on both stores.
import { setDefaultStorage } from "./_bytes.ts";

setDefaultStorage("bytes");
