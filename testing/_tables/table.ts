/**
 * Server-side Tables: the encoder that turns what the API server answers a
 * `get`, `list` or `watch` into the Table a request for
 * `application/json;as=Table;v=v1;g=meta.k8s.io` gets, as `kubectl get`
 * asks. The columns and cells come from `_tables/printers.ts` and `_tables/cells.ts`.
 *
 * @module
 */
import type {
  KubeObject,
  ObjectMeta,
  WatchEvent,
} from "../../apiclient/types.ts";
import type { RegisteredResource } from "../types.ts";
import { badRequest } from "../_verbs/status.ts";
import { negotiateTable } from "../_http/negotiation.ts";
import { type Printer, printerFor } from "./printers.ts";
import type { IncludeObject, Table, TableRow } from "./table_types.ts";

/**
 * Turns the answers of one request into Tables for one resource: a list, an
 * object, or each event of a watch (where only the first carries the
 * column definitions, as the API server's watch encoder does).
 */
export class TableEncoder {
  /** The Table's apiVersion, `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  readonly apiVersion: string;
  /** What each row carries as its object. */
  readonly includeObject: IncludeObject;
  #printer: Printer;
  #headers = true;

  /** An encoder for `resource`, answering Tables of `apiVersion`. */
  constructor(
    resource: RegisteredResource,
    options: {
      apiVersion: string;
      includeObject?: IncludeObject | undefined;
    },
  ) {
    this.apiVersion = options.apiVersion;
    this.includeObject = options.includeObject ?? "Metadata";
    this.#printer = printerFor(resource);
  }

  /**
   * The encoder a request asks for by its `Accept` header and
   * `includeObject` query parameter, or `undefined` for plain JSON.
   * Throws the API server's 400 for an unknown `includeObject`.
   */
  static negotiate(
    resource: RegisteredResource,
    request: { accept: string | null; query: URLSearchParams },
  ): TableEncoder | undefined {
    const apiVersion = negotiateTable(request.accept);
    if (apiVersion === undefined) return undefined;
    const include = request.query.get("includeObject") ?? "";
    if (!["", "None", "Metadata", "Object"].includes(include)) {
      throw badRequest(
        `Unable to convert to Table as requested: includeObject: Invalid value: "${include}": must be 'Metadata', 'Object', 'None', or empty`,
      );
    }
    return new TableEncoder(resource, {
      apiVersion,
      includeObject: (include || "Metadata") as IncludeObject,
    });
  }

  /** The Table of a list: one row per item, the list's metadata. */
  list(
    list: { metadata?: Record<string, unknown>; items: KubeObject[] },
  ): Table {
    const metadata: Record<string, unknown> = {};
    for (const key of ["resourceVersion", "continue", "remainingItemCount"]) {
      if (list.metadata?.[key] !== undefined) {
        metadata[key] = list.metadata[key];
      }
    }
    return this.#table(metadata, list.items);
  }

  /** The Table of one object: one row, the object's resourceVersion. */
  object(object: KubeObject): Table {
    const metadata: Record<string, unknown> = {};
    const rv = object.metadata?.resourceVersion;
    if (rv) metadata.resourceVersion = rv;
    return this.#table(metadata, [object]);
  }

  /**
   * A watch event with its object as a one-row Table; a Status (an ERROR
   * event) passes unchanged. Only the first event carries the columns.
   */
  event(event: WatchEvent): { type: string; object: unknown } {
    const object = event.object as KubeObject;
    const status = object?.kind === "Status" && object.apiVersion === "v1";
    const out = status
      ? event
      : { type: event.type, object: this.object(object) };
    this.#headers = false;
    return out;
  }

  #table(metadata: Record<string, unknown>, objects: KubeObject[]): Table {
    const now = Date.now();
    const rows = objects.map((object) => {
      const row: TableRow = {
        cells: this.#printer.cells(object, now),
        object: this.#rowObject(object),
      };
      const conditions = this.#printer.conditions?.(object);
      if (conditions) {
        return { cells: row.cells, conditions, object: row.object };
      }
      return row;
    });
    return {
      kind: "Table",
      apiVersion: this.apiVersion,
      metadata,
      columnDefinitions: this.#headers ? [...this.#printer.columns] : null,
      rows,
    };
  }

  #rowObject(object: KubeObject): unknown {
    switch (this.includeObject) {
      case "None":
        return null;
      case "Object":
        return object;
      default:
        return {
          kind: "PartialObjectMetadata",
          apiVersion: this.apiVersion,
          metadata: object.metadata ?? ({} as ObjectMeta),
        };
    }
  }
}
