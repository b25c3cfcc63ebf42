/**
 * The Kubernetes authorizer library (k8s.io/apiserver/pkg/cel/library/
 * authz.go, with its selectors): `authorizer.group(g).resource(r)
 * .namespace(ns).name(n).check(verb).allowed()`, `authorizer.path(p)`,
 * `authorizer.serviceAccount(ns, name)`, `authorizer.requestResource`, and
 * a decision's `allowed()`, `reason()`, `errored()`, `error()`. The
 * decisions come from a {@linkcode CelAuthorizer} the caller passes as the
 * `authorizer` variable's value.
 *
 * @module
 */

import type { Environment } from "@marcbachmann/cel-js";
import { celError } from "./_values.ts";

/** What an authorization check asks, as `authorizer.Attributes` holds it. */
export interface AuthorizationAttributes {
  /** The user asked about: the request's, or a service account's. */
  readonly user?: { readonly namespace: string; readonly name: string };
  /** A non-resource path (`/healthz`), for a path check. */
  readonly path?: string;
  /** The API group, for a resource check. */
  readonly group?: string;
  /** The resource (plural), for a resource check. */
  readonly resource?: string;
  /** The subresource, if any. */
  readonly subresource?: string;
  /** The namespace, if any. */
  readonly namespace?: string;
  /** The object's name, if any. */
  readonly name?: string;
  /** The field selector, if any. */
  readonly fieldSelector?: string;
  /** The label selector, if any. */
  readonly labelSelector?: string;
  /** The verb (`get`, `list`, `create`...). */
  readonly verb: string;
}

/** An authorizer's answer. */
export interface AuthorizationDecision {
  /** `allow`, `deny` or `noOpinion` (which CEL reads as not allowed). */
  readonly decision: "allow" | "deny" | "noOpinion";
  /** Why, as `reason()` returns it. */
  readonly reason?: string;
  /** An error the authorizer met, as `error()` returns it. */
  readonly error?: string;
}

/** The value of the `authorizer` variable: who decides. */
export interface CelAuthorizer {
  /** Decides one check. */
  authorize(attributes: AuthorizationAttributes): AuthorizationDecision;
  /** The request's own resource, for `authorizer.requestResource`. */
  readonly requestResource?: Omit<AuthorizationAttributes, "verb" | "user">;
}

const AUTHORIZER = "kubernetes.authorization.Authorizer";
const PATH_CHECK = "kubernetes.authorization.PathCheck";
const GROUP_CHECK = "kubernetes.authorization.GroupCheck";
const RESOURCE_CHECK = "kubernetes.authorization.ResourceCheck";
const DECISION = "kubernetes.authorization.Decision";

/** The engine's type of the `authorizer` variable. */
export const AUTHORIZER_TYPE = AUTHORIZER;

/** The engine's value of an authorizer. */
class Authorizer {
  /** `authorizer.requestResource`: an own field, as the engine reads one. */
  readonly requestResource: ResourceCheck;
  constructor(
    readonly authorizer: CelAuthorizer,
    readonly user?: { namespace: string; name: string },
  ) {
    this.requestResource = new ResourceCheck(this, {
      ...(authorizer.requestResource ?? {}),
    });
  }
}

class PathCheck {
  constructor(readonly from: Authorizer, readonly path: string) {}
}

class GroupCheck {
  constructor(readonly from: Authorizer, readonly group: string) {}
}

class ResourceCheck {
  constructor(
    readonly from: Authorizer,
    readonly attributes: Omit<AuthorizationAttributes, "verb" | "user">,
  ) {}
  with(key: string, value: string): ResourceCheck {
    return new ResourceCheck(this.from, { ...this.attributes, [key]: value });
  }
}

class Decision {
  constructor(readonly answer: AuthorizationDecision) {}
}

/** The engine's value of a caller's authorizer. */
export function authorizerValue(authorizer: CelAuthorizer): unknown {
  return new Authorizer(authorizer);
}

function decide(
  from: Authorizer,
  attributes: Omit<AuthorizationAttributes, "verb" | "user">,
  verb: string,
): Decision {
  return new Decision(
    from.authorizer.authorize({
      ...attributes,
      ...(from.user ? { user: from.user } : {}),
      verb,
    }),
  );
}

/** Registers the authorizer library. */
export function authz(environment: Environment): void {
  environment.registerType(RESOURCE_CHECK, ResourceCheck);
  environment.registerType(AUTHORIZER, {
    ctor: Authorizer,
    fields: { requestResource: RESOURCE_CHECK },
  });
  environment.registerType(PATH_CHECK, PathCheck);
  environment.registerType(GROUP_CHECK, GroupCheck);
  environment.registerType(DECISION, Decision);
  environment.registerFunction(
    `${AUTHORIZER}.path(string): ${PATH_CHECK}`,
    (a: Authorizer, path: string) => new PathCheck(a, path),
  );
  environment.registerFunction(
    `${AUTHORIZER}.group(string): ${GROUP_CHECK}`,
    (a: Authorizer, group: string) => new GroupCheck(a, group),
  );
  environment.registerFunction(
    `${AUTHORIZER}.serviceAccount(string, string): ${AUTHORIZER}`,
    (a: Authorizer, namespace: string, name: string) =>
      new Authorizer(a.authorizer, { namespace, name }),
  );
  environment.registerFunction(
    `${GROUP_CHECK}.resource(string): ${RESOURCE_CHECK}`,
    (g: GroupCheck, resource: string) =>
      new ResourceCheck(g.from, { group: g.group, resource }),
  );
  for (
    const key of [
      "subresource",
      "namespace",
      "name",
      "fieldSelector",
      "labelSelector",
    ]
  ) {
    environment.registerFunction(
      `${RESOURCE_CHECK}.${key}(string): ${RESOURCE_CHECK}`,
      (r: ResourceCheck, value: string) => r.with(key, value),
    );
  }
  environment.registerFunction(
    `${PATH_CHECK}.check(string): ${DECISION}`,
    (p: PathCheck, verb: string) => decide(p.from, { path: p.path }, verb),
  );
  environment.registerFunction(
    `${RESOURCE_CHECK}.check(string): ${DECISION}`,
    (r: ResourceCheck, verb: string) => {
      if (r.attributes.resource === undefined) {
        throw celError("no resource given for the check");
      }
      return decide(r.from, r.attributes, verb);
    },
  );
  environment.registerFunction(
    `${DECISION}.allowed(): bool`,
    (d: Decision) => d.answer.decision === "allow",
  );
  environment.registerFunction(
    `${DECISION}.reason(): string`,
    (d: Decision) => d.answer.reason ?? "",
  );
  environment.registerFunction(
    `${DECISION}.errored(): bool`,
    (d: Decision) => (d.answer.error ?? "") !== "",
  );
  environment.registerFunction(
    `${DECISION}.error(): string`,
    (d: Decision) => d.answer.error ?? "",
  );
}
