/**
 * The Kubernetes CEL libraries, registered on the engine through its
 * extension points (functions, operators, macros).
 *
 * @module
 */

import type { Environment } from "@marcbachmann/cel-js";

/** Registers the libraries on an environment and returns it. */
export function libraries(environment: Environment): Environment {
  return environment;
}
