/**
 * The shapes of a server-side Table (`meta.k8s.io/v1` Table), as the
 * Kubernetes API docs define `metav1.Table` and its parts.
 *
 * @module
 */

/** What a Table row carries as its object (`?includeObject=`). */
export type IncludeObject = "None" | "Metadata" | "Object";

/** One column of a Table (`metav1.TableColumnDefinition`). */
export interface TableColumnDefinition {
  /** Human-readable name, such as `Name`. */
  name: string;
  /** OpenAPI type of the cells, such as `string`. */
  type: string;
  /** OpenAPI format, such as `name`; `""` when none. */
  format: string;
  /** What the column shows. */
  description: string;
  /** 0: always shown; higher: only with `-o wide`. */
  priority: number;
}

/** One condition of a row (`metav1.TableRowCondition`). */
export interface TableRowCondition {
  /** Only `Completed` exists. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  /** Machine-readable reason. */
  reason?: string | undefined;
  /** Human-readable message. */
  message?: string | undefined;
}

/** One row of a Table (`metav1.TableRow`). */
export interface TableRow {
  /** One cell per column: a string, number, boolean or `null`. */
  cells: unknown[];
  /** Row conditions, such as a completed Pod's. */
  conditions?: TableRowCondition[] | undefined;
  /** The object, its metadata, or `null`, per `includeObject`. */
  object: unknown;
}

/** A Table (`meta.k8s.io/v1` Table). */
export interface Table {
  /** Always `Table`. */
  kind: "Table";
  /** `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`. */
  apiVersion: string;
  /** resourceVersion, and for lists continue and remainingItemCount. */
  metadata: Record<string, unknown>;
  /** The columns; `null` on watch events after the first. */
  columnDefinitions: TableColumnDefinition[] | null;
  /** One row per object. */
  rows: TableRow[];
}
