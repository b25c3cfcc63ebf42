/**
 * The scenarios of the differential suite: the same requests sent to the
 * fake and to a real kube-apiserver, whose answers are compared after
 * {@linkcode normalise}. Each runs in its own namespace. They live by area
 * in `scenarios/`; this is their index, in order.
 *
 * @module
 */

import type { Scenario } from "./scenarios/_common.ts";
import { OBJECTS } from "./scenarios/objects.ts";
import { WATCHES } from "./scenarios/watches.ts";
import { DELETION } from "./scenarios/deletion.ts";
import { WRITES } from "./scenarios/writes.ts";
import { READS } from "./scenarios/reads.ts";
import { CONTROLLERS } from "./scenarios/controllers.ts";
import { CUSTOM_RESOURCES } from "./scenarios/custom_resources.ts";
import { VALIDATION_RULES } from "./scenarios/validation_rules.ts";
import { WEBHOOKS } from "./scenarios/webhooks.ts";
import { CONVERSION } from "./scenarios/conversion.ts";
import { BUILTINS } from "./scenarios/builtins.ts";
import { POLICIES } from "./scenarios/policies.ts";

export type { Hooks, Scenario } from "./scenarios/_common.ts";

/** Every scenario, in order. */
export const SCENARIOS: readonly Scenario[] = [
  ...OBJECTS,
  ...WATCHES,
  ...DELETION,
  ...WRITES,
  ...READS,
  ...CONTROLLERS,
  ...CUSTOM_RESOURCES,
  ...VALIDATION_RULES,
  ...WEBHOOKS,
  ...CONVERSION,
  ...BUILTINS,
  ...POLICIES,
];
