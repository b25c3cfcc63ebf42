/**
 * A CustomResourceDefinition's `spec.conversion`, as the apiextensions
 * server defaults and validates it (`SetDefaults_CustomResourceConversion`,
 * `ValidateCustomResourceConversion`, `webhook.ValidateWebhookURL` and
 * `ValidateWebhookService`). Errors name the fields by the internal
 * version's names, as the API server does
 * (`spec.conversion.webhookClientConfig`, not `webhook.clientConfig`).
 *
 * @module
 */
import type { Cause } from "../../resource/errors.ts";
import { isObject } from "../_store/objects.ts";

/** The `ConversionReview` versions the API server speaks. */
const REVIEW_VERSIONS = ["v1", "v1beta1"];
const STRATEGIES = ["None", "Webhook"];
const AT = "spec.conversion";
const CLIENT = `${AT}.webhookClientConfig`;
const FORM = "; desired format: https://host[/path]";
const DNS1035 = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** A definition's webhook conversion, as the fake calls it. */
export interface WebhookConversion {
  /** `clientConfig`: `url` or `service`, and `caBundle`. */
  clientConfig: Record<string, unknown>;
}

/** Fills in the API server's defaults of `spec.conversion`, in place. */
export function defaultConversion(spec: { conversion?: unknown }): void {
  spec.conversion ??= { strategy: "None" };
  const conversion = spec.conversion;
  if (!isObject(conversion)) return;
  conversion.strategy ??= "None";
  const config = isObject(conversion.webhook)
    ? conversion.webhook.clientConfig
    : undefined;
  if (isObject(config) && isObject(config.service)) {
    config.service.port ??= 443;
  }
}

/** The webhook of a (valid) `spec.conversion`; `undefined` for `None`. */
export function webhookOf(conversion: unknown): WebhookConversion | undefined {
  if (!isObject(conversion) || conversion.strategy !== "Webhook") {
    return undefined;
  }
  const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
  const clientConfig = isObject(webhook.clientConfig)
    ? structuredClone(webhook.clientConfig)
    : {};
  return { clientConfig };
}

/** What the API server refuses in a (defaulted) `spec.conversion`. */
export function conversionErrors(conversion: unknown): Cause[] {
  if (!isObject(conversion)) return [];
  const out: Cause[] = [];
  const strategy = conversion.strategy;
  if (!STRATEGIES.includes(strategy as string)) {
    out.push({
      field: `${AT}.strategy`,
      reason: "FieldValueNotSupported",
      message: `Unsupported value: ${
        JSON.stringify(strategy ?? "")
      }: supported values: ${STRATEGIES.map((s) => `"${s}"`).join(", ")}`,
    });
  }
  const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
  const config = webhook.clientConfig;
  const versions = webhook.conversionReviewVersions;
  if (strategy === "Webhook") {
    if (!isObject(config)) {
      out.push(required(CLIENT, "required when strategy is set to Webhook"));
    } else out.push(...clientConfigErrors(config));
    out.push(...reviewVersionErrors(versions));
  } else {
    const forbidden = (field: string): Cause => ({
      field,
      reason: "FieldValueForbidden",
      message:
        "Forbidden: should not be set when strategy is not set to Webhook",
    });
    if (config !== undefined && config !== null) out.push(forbidden(CLIENT));
    if (Array.isArray(versions) && versions.length > 0) {
      out.push(forbidden(`${AT}.conversionReviewVersions`));
    }
  }
  return out;
}

function clientConfigErrors(config: Record<string, unknown>): Cause[] {
  const url = config.url;
  const service = config.service;
  const hasUrl = url !== undefined && url !== null;
  const hasService = service !== undefined && service !== null;
  if (hasUrl === hasService) {
    return [required(CLIENT, "exactly one of url or service is required")];
  }
  return hasUrl
    ? urlErrors(String(url))
    : serviceErrors(isObject(service) ? service : {});
}

function urlErrors(text: string): Cause[] {
  const field = `${CLIENT}.url`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [required(field, `url must be a valid URL${FORM}`)];
  }
  const out: Cause[] = [];
  const scheme = url.protocol.replace(/:$/, "");
  if (scheme !== "https") {
    out.push(invalidValue(
      field,
      scheme,
      `'https' is the only allowed URL scheme${FORM}`,
    ));
  }
  if (url.host === "") {
    out.push(invalidValue(field, "", `host must be specified${FORM}`));
  }
  if (url.username !== "" || url.password !== "") {
    out.push(invalidValue(
      field,
      url.password === "" ? url.username : `${url.username}:${url.password}`,
      "user information is not permitted in the URL",
    ));
  }
  if (url.hash !== "") {
    out.push(invalidValue(
      field,
      url.hash.slice(1),
      "fragments are not permitted in the URL",
    ));
  }
  if (url.search !== "") {
    out.push(invalidValue(
      field,
      url.search.slice(1),
      "query parameters are not permitted in the URL",
    ));
  }
  return out;
}

function serviceErrors(service: Record<string, unknown>): Cause[] {
  const at = `${CLIENT}.service`;
  const out: Cause[] = [];
  if (typeof service.name !== "string" || service.name === "") {
    out.push(required(`${at}.name`, "service name is required"));
  }
  if (typeof service.namespace !== "string" || service.namespace === "") {
    out.push(required(`${at}.namespace`, "service namespace is required"));
  }
  const path = service.path;
  if (typeof path === "string" && path !== "" && !path.startsWith("/")) {
    out.push(invalidValue(`${at}.path`, path, "must start with a '/'"));
  }
  const port = service.port;
  if (
    typeof port === "number" &&
    (!Number.isInteger(port) || port < 1 || port > 65535)
  ) {
    out.push({
      field: `${at}.port`,
      reason: "FieldValueInvalid",
      message:
        `Invalid value: ${port}: port is not valid: must be between 1 and 65535, inclusive`,
    });
  }
  return out;
}

function reviewVersionErrors(versions: unknown): Cause[] {
  const field = `${AT}.conversionReviewVersions`;
  if (!Array.isArray(versions) || versions.length === 0) {
    return [required(field, "")];
  }
  const out: Cause[] = [];
  const seen = new Set<unknown>();
  versions.forEach((version, i) => {
    if (seen.has(version)) {
      out.push(invalidValue(`${field}[${i}]`, version, "duplicate version"));
      return;
    }
    seen.add(version);
    if (typeof version !== "string" || !DNS1035.test(version)) {
      out.push(invalidValue(
        `${field}[${i}]`,
        version,
        "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')",
      ));
    }
  });
  if (!versions.some((v) => REVIEW_VERSIONS.includes(v))) {
    out.push(invalidValue(
      field,
      versions,
      `must include at least one of ${REVIEW_VERSIONS.join(", ")}`,
    ));
  }
  return out;
}

function required(field: string, detail: string): Cause {
  return {
    field,
    reason: "FieldValueRequired",
    message: detail === "" ? "Required value" : `Required value: ${detail}`,
  };
}

function invalidValue(field: string, value: unknown, detail: string): Cause {
  return {
    field,
    reason: "FieldValueInvalid",
    message: `Invalid value: ${JSON.stringify(value)}: ${detail}`,
  };
}
