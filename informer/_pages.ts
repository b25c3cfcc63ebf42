// A paginated list of a collection, as the reflector reads it.
import type { Client } from "../apiclient/client.ts";
import type { KubeList, KubeObject } from "../apiclient/types.ts";
import { isExpired } from "./_errors.ts";
import type { Source } from "./source.ts";

/** Objects per page of a list. */
export const PAGE_SIZE = 500;
/** The `Accept` of a metadata-only list, JSON as the fallback. */
export const METADATA_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/** The `Accept` of a metadata-only watch (streaming lists too). */
export const METADATA_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/** A collection's path with a query, the source's selectors last. */
export function collectionUrl(
  path: string,
  source: Source,
  params: Record<string, string | undefined>,
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined && value !== "") query.set(name, value);
  }
  if (source.labelSelector) query.set("labelSelector", source.labelSelector);
  if (source.fieldSelector) query.set("fieldSelector", source.fieldSelector);
  const text = query.toString();
  return text === "" ? path : `${path}?${text}`;
}

/** A list that holds everything the read found, and the version it shows. */
export interface Listed {
  items: KubeObject[];
  resourceVersion: string;
}

/**
 * Reads every page of a collection. `from` is the version the read may not
 * be older than, or `""` for the newest (a consistent read). A continue token
 * that outlived the server's history costs one whole list instead.
 * `accept` is the `Accept` header, if not plain JSON.
 */
export async function pages(
  client: Client,
  url: (params: Record<string, string | undefined>) => string,
  from: string,
  signal: AbortSignal,
  accept?: string,
): Promise<Listed> {
  const options = accept === undefined ? { signal } : { signal, accept };
  // Never an older view than already seen: from the last version, or the
  // newest when there is none or it is gone.
  const first: Record<string, string | undefined> = from === "" ? {} : {
    resourceVersion: from,
    resourceVersionMatch: "NotOlderThan",
  };
  const page = await client.get<KubeList>(
    url({ ...first, limit: String(PAGE_SIZE) }),
    options,
  );
  const items = page.items ?? [];
  const resourceVersion = page.metadata?.resourceVersion ?? "";
  let token = page.metadata?.continue;
  while (token) {
    let next: KubeList;
    try {
      next = await client.get<KubeList>(
        url({ limit: String(PAGE_SIZE), continue: token }),
        options,
      );
    } catch (error) {
      if (!isExpired(error)) throw error;
      const whole = await client.get<KubeList>(url(first), options);
      return {
        items: whole.items ?? [],
        resourceVersion: whole.metadata?.resourceVersion ?? "",
      };
    }
    for (const item of next.items ?? []) items.push(item);
    token = next.metadata?.continue;
  }
  return { items, resourceVersion };
}
