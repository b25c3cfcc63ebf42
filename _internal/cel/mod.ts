/**
 * The package's one CEL engine: CEL as the Kubernetes API server (1.37)
 * compiles and evaluates it, for the fake API server (CRD validation
 * rules, admission webhooks' `matchConditions`). Only the fake loads it:
 * nothing an operator imports in a cluster (`controller`, `resource`,
 * the root module) reaches this folder.
 *
 * ```ts ignore
 * const program = compile("self.min <= self.max", {
 *   variables: { self: { object: { min: "int", max: "int" } } },
 * });
 * program.run({ self: { min: 1, max: 2 } }); // true
 * ```
 *
 * - {@linkcode compile} parses and type-checks an expression against
 *   declared variables; a bad one throws {@linkcode CelCompileError} whose
 *   message is cel-go's (`ERROR: <input>:1:1: undeclared reference to 'x'
 *   (in container '')` and its two snippet lines), which the API server
 *   wraps as `compilation failed: …`. `stored` picks the environment of an
 *   expression already stored (1.37's) rather than of a new one (1.36's).
 * - {@linkcode CelProgram.run} evaluates with JSON values (as decoded from
 *   a request), converted by the declared types (an `int` field's `1` is
 *   CEL's `1`, a `timestamp` field's string a timestamp, an object's
 *   unnamed fields hidden). It returns a CEL value (`bigint` for `int`,
 *   `number` for `double`, `string`, `boolean`, arrays, `Map`s, ...) or
 *   throws {@linkcode CelRuntimeError} in cel-go's words (`no such key:
 *   x`), or {@linkcode CelCostError} (`operation cancelled: actual cost
 *   limit exceeded`) when its cost limit is reached.
 * - {@linkcode schemaType} is the API server's CEL type of a structural
 *   schema, for `self` and `oldSelf`; {@linkcode compileMatchCondition}
 *   the environment of admission `matchConditions`.
 *
 * For a CRD's rules, as the API server runs them: `self` (and `oldSelf`, or
 * `{ optional: … }` under `optionalOldSelf`) typed by `schemaType(node,
 * { resourceRoot })`; each rule run with `costLimit: Math.min(
 * PER_CALL_LIMIT, remaining)`, its `lastCost` taken from what remains of
 * {@linkcode RUNTIME_COST_BUDGET} for the object; a program compiled once
 * per rule and kept (compiling costs tens of microseconds, evaluating a
 * few).
 *
 * **Engine.** The evaluator is `@marcbachmann/cel-js` 8.0.0 (pinned in
 * deno.json), extended only through its extension points (registered
 * functions, operators, macros, types and constants, and a wrapper around
 * each parsed node's `evaluate`) by this folder. Measured with the same
 * harness on the cel-spec conformance data (`@bufbuild/cel-spec` 0.6.1),
 * `@bufbuild/cel` 0.6.1 passes more of the core sections (comparisons,
 * conversions, integer math) when nothing is type-checked, but its API has
 * no type checker (the API server refuses a rule that does not type-check
 * when the CRD is written), its parser has no optional syntax (`a.?b`),
 * and it has no way to add macros (two-variable comprehensions, `optMap`),
 * none of which an extension can give it; cel-js has a checker, the
 * optional syntax, macros as an extension point and no dependency, and is
 * released often. `@bufbuild/re2` (RE2, linear time, as Go's regexp) runs
 * `matches`. The conformance test (`conformance_test.ts`) holds each
 * claimed section to what `conformance.json` records: how many tests pass
 * and are skipped, and the failing ones by name.
 *
 * **The environment** (k8s.io/apiserver/pkg/cel/environment/base.go at
 * 1.37): CEL's standard library; homogeneous aggregate literals; optional
 * types; cross-type numeric comparison; cel-go strings extension version
 * 2, lists extension version 3, sets, two-variable comprehensions; the
 * Kubernetes libraries: lists (version 0 for new expressions, 1 with
 * `includes` for stored ones), regex (`find`, `findAll`), URLs, quantity,
 * IP, CIDR, format, semver (version 1), the authorizer with its selectors
 * (decided by a {@linkcode CelAuthorizer} the caller passes); the
 * validators of regex, duration and timestamp literals. Not covered: the
 * parser's `[?x]` and `{?k: v}` optional entries, and backquoted field
 * names.
 *
 * **Bounded evaluation.** JavaScript cannot interrupt a running function,
 * so the cost is counted inside the evaluation, as cel-go's cost tracker
 * counts it (`_cost.ts`): a literal costs nothing, a name or a field 1, a
 * call 1 or, where cel-go weighs it, by its arguments' sizes (`==` and
 * `<` on strings a tenth of the shorter one, `in` a list its length,
 * `matches`, `contains`, the Kubernetes string and list functions as its
 * library's `CallCost`), a list literal 10, a map literal 30, and a macro
 * as cel-go's expansion of it (`all` 3 per item besides its predicate);
 * as with the API server's `OptOptimize`, a literal of constants, a
 * conversion of a constant and `in` a constant list cost nothing.
 * Reaching the limit ({@linkcode PER_CALL_LIMIT} unless told) throws
 * {@linkcode CelCostError}, even where the expression would have absorbed
 * an error. A deeper expression than the parser's 250 levels does not
 * compile; a value nested too deep to convert is a runtime error.
 *
 * **Estimated cost.** {@linkcode CelProgram.estimateCost} is cel-go's
 * static estimate (`checker.Cost`) with the Kubernetes library's
 * estimates, over the sizes {@linkcode schemaSizes} gives a schema
 * (`maxLength` times 4 bytes, `maxItems`, `maxProperties`, an enum's
 * longest value, else what fits in a 3 MiB request); the API server
 * refuses a CRD whose rules' estimates are over
 * {@linkcode STATIC_COST_LIMIT} each or {@linkcode STATIC_CRD_COST_LIMIT}
 * together ({@linkcode costErrorMessage} words it).
 *
 * **Known differences.** `optMap` and `optFlatMap` cost what cel-go's
 * expansion does but for its second evaluation of the receiver. Timestamps are JavaScript dates (milliseconds, not
 * nanoseconds). The engine's `substring`, `indexOf` and `lastIndexOf`
 * count UTF-16 units where cel-go counts code points (they differ past
 * U+FFFF only); `size()` and `charAt` count code points. `find` and `findAll` extract with JavaScript's regular
 * expressions after RE2 has found a match. `self == oldSelf` on a `set` or
 * `map` list compares regardless of order only where the list is a field
 * of an object. Some errors' words are the engine's own where cel-go's are
 * not known (a syntax error other than a missing or unexpected token).
 *
 * @module
 */

export { CelCompileError, CelCostError, CelRuntimeError } from "./_values.ts";
export {
  CelUnsupportedError,
  compileMatchCondition,
  MATCH_CONDITION_VARIABLES,
} from "./_admission.ts";
export { escapeField, schemaType, typeName } from "./_types.ts";
export {
  costErrorMessage,
  maxCardinality,
  schemaSizes,
  type SizeTree,
  STATIC_COST_LIMIT,
  STATIC_CRD_COST_LIMIT,
} from "./_cost.ts";
export type {
  AuthorizationAttributes,
  AuthorizationDecision,
  CelAuthorizer,
} from "./_authz.ts";
export type { CelType, SchemaTypeOptions } from "./_types.ts";
export {
  type CelProgram,
  compile,
  type CompileOptions,
  PER_CALL_LIMIT,
  type RunOptions,
  RUNTIME_COST_BUDGET,
  toDyn,
} from "./_compile.ts";
