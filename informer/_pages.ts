// A paginated list of a collection, as the reflector reads it.
import { PARSE, type Parse, type ParseOption } from "../_internal/parse.ts";
import type { ResourceClient } from "../apiclient/handle.ts";
import type { ListOptions } from "../apiclient/options.ts";
import type { KubeList, KubeObject } from "../apiclient/types.ts";
import { isExpired } from "./_errors.ts";
import type { Read } from "./_delivery.ts";
import type { Source } from "./source.ts";

/** Objects per page of a list. */
export const PAGE_SIZE = 500;
/** The `Accept` of a metadata-only list, JSON as the fallback. */
export const METADATA_LIST_ACCEPT =
  "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json";
/** The `Accept` of a metadata-only watch (streaming lists too). */
export const METADATA_ACCEPT =
  "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json";

/** Where {@linkcode pages} hands each object it reads. */
export interface PageSink {
  /** Takes one object of a page, as it arrives. */
  add(item: KubeObject): void;
  /** Drops what was added: the read starts again as one whole list. */
  restart(): void;
}

/**
 * Reads every page of a collection through its handle, with the source's
 * selectors, handing each object to `sink` page by page (so that only one
 * page of raw objects is alive at a time; collecting them all first made a
 * 1M-object sync 3x slower per object than a 10k one, the collector
 * scanning the raw copies). `from` is the version the read may not be
 * older than, or `""` for the newest (a consistent read). A continue token
 * that outlived the server's history costs one whole list instead. `accept`
 * is the `Accept` header, if not plain JSON. Answers the list's version.
 */
export async function pages<T extends KubeObject>(
  handle: ResourceClient<T>,
  source: Source,
  options: {
    from: string;
    signal: AbortSignal;
    accept?: string | undefined;
    /** Parses each page's text in place of JSON.parse (`_bytes.ts`). */
    parse?: Parse | undefined;
    sink: PageSink;
  },
): Promise<string> {
  const { from, signal, accept, sink, parse } = options;
  const read: ListOptions & ParseOption = accept === undefined
    ? { signal }
    : { signal, accept };
  if (parse !== undefined) read[PARSE] = parse;
  if (source.labelSelector) read.labelSelector = source.labelSelector;
  if (source.fieldSelector) read.fieldSelector = source.fieldSelector;
  // Never an older view than already seen: from the last version, or the
  // newest when there is none or it is gone.
  const first: ListOptions = from === "" ? {} : {
    resourceVersion: from,
    resourceVersionMatch: "NotOlderThan",
  };
  const list = (options: ListOptions): Promise<KubeList> =>
    handle.list({ ...read, ...options }) as Promise<KubeList>;
  const page = await list({ ...first, limit: PAGE_SIZE });
  for (const item of page.items ?? []) sink.add(item);
  const resourceVersion = page.metadata?.resourceVersion ?? "";
  let token = page.metadata?.continue;
  while (token) {
    let next: KubeList;
    try {
      next = await list({ limit: PAGE_SIZE, continue: token });
    } catch (error) {
      if (!isExpired(error)) throw error;
      const whole = await list(first);
      sink.restart();
      for (const item of whole.items ?? []) sink.add(item);
      return whole.metadata?.resourceVersion ?? "";
    }
    for (const item of next.items ?? []) sink.add(item);
    token = next.metadata?.continue;
  }
  return resourceVersion;
}

/** A whole paginated read: the store's new contents and their version. */
export interface Listed<T extends KubeObject> {
  read: Read<T>;
  resourceVersion: string;
}

/** {@linkcode pages} into a new read of the store (`newRead`). */
export async function readPages<T extends KubeObject>(
  handle: ResourceClient<T>,
  source: Source,
  options: {
    from: string;
    signal: AbortSignal;
    accept?: string | undefined;
    parse?: Parse | undefined;
    newRead: () => Read<T>;
  },
): Promise<Listed<T>> {
  let read = options.newRead();
  const resourceVersion = await pages(handle, source, {
    ...options,
    sink: {
      add: (raw) => read.add(raw),
      restart: () => read = options.newRead(),
    },
  });
  return { read, resourceVersion };
}
