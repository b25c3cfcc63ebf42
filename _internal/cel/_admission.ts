/**
 * The CEL environment of admission `matchConditions`
 * (k8s.io/apiserver/pkg/admission/plugin/cel/compile.go): `object` and
 * `oldObject` (`dyn`, `null` when absent) and `request` (the
 * `AdmissionRequest` type), an expression that must be a `bool`. The
 * `authorizer` variable is not evaluated here: an expression naming it is
 * refused as unsupported rather than judged wrongly.
 *
 * @module
 */

import type { CelType } from "./_types.ts";
import { type CelProgram, compile } from "./_compile.ts";
import { CelCompileError } from "./_values.ts";

const GROUP_VERSION_KIND: CelType = {
  object: { group: "string", version: "string", kind: "string" },
};
const GROUP_VERSION_RESOURCE: CelType = {
  object: { group: "string", version: "string", resource: "string" },
};

/** The variables of a match condition, with the API server's types. */
export const MATCH_CONDITION_VARIABLES: { readonly [name: string]: CelType } = {
  object: "dyn",
  oldObject: "dyn",
  request: {
    object: {
      kind: GROUP_VERSION_KIND,
      resource: GROUP_VERSION_RESOURCE,
      subResource: "string",
      requestKind: GROUP_VERSION_KIND,
      requestResource: GROUP_VERSION_RESOURCE,
      requestSubResource: "string",
      name: "string",
      namespace: "string",
      operation: "string",
      userInfo: {
        object: {
          username: "string",
          uid: "string",
          groups: { list: "string" },
          extra: { map: { list: "string" } },
        },
      },
      dryRun: "bool",
      options: "dyn",
    },
  },
};

/** An expression the engine does not evaluate as the API server would. */
export class CelUnsupportedError extends Error {
  override name = "CelUnsupportedError";
}

const programs = new Map<string, CelProgram>();

/**
 * Compiles a match condition, as the API server's validation does: a
 * {@linkcode CelCompileError} has the API server's detail (`compilation
 * failed: …`, `must evaluate to bool but got string`).
 *
 * @throws {CelCompileError} The expression does not compile or is no `bool`.
 * @throws {CelUnsupportedError} It names `authorizer`.
 */
export function compileMatchCondition(expression: string): CelProgram {
  const cached = programs.get(expression);
  if (cached) return cached;
  let program: CelProgram;
  try {
    program = compile(expression, { variables: MATCH_CONDITION_VARIABLES });
  } catch (error) {
    if (
      error instanceof CelCompileError &&
      error.message.includes("undeclared reference to 'authorizer'")
    ) {
      throw new CelUnsupportedError("the authorizer variable");
    }
    if (error instanceof CelCompileError) {
      throw new CelCompileError(`compilation failed: ${error.message}`);
    }
    throw error;
  }
  if (program.resultType !== "bool" && program.resultType !== "dyn") {
    throw new CelCompileError(
      `must evaluate to bool but got ${program.resultType}`,
    );
  }
  // A bounded cache: configurations hold few distinct expressions.
  if (programs.size >= 1000) programs.clear();
  programs.set(expression, program);
  return program;
}
