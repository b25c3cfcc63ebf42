// The versions of one definition, normalised from either form of
// `defineResource`'s options (one `version` + `schema`, or `versions`), and
// the `spec.versions[]` entries of its CustomResourceDefinition.

import type {
  CustomResourceDefinitionVersion,
  PrinterColumn,
  ScaleSubresource,
} from "./crd.ts";
import type { ObjectSchema } from "./schema.ts";

/** What every version may set, and the definition sets for all of them. */
export interface VersionParts {
  printerColumns?: readonly PrinterColumn[] | undefined;
  status?: boolean | undefined;
  scale?: ScaleSubresource | undefined;
  selectableFields?: readonly string[] | undefined;
}

/** One version as given. */
export interface GivenVersion extends VersionParts {
  name: string;
  schema: ObjectSchema;
  served?: boolean | undefined;
  storage?: boolean | undefined;
  deprecated?: boolean | undefined;
  deprecationWarning?: string | undefined;
}

/** One version, with the definition's parts filled in. */
export interface Version extends VersionParts {
  name: string;
  schema: ObjectSchema;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning?: string | undefined;
}

/**
 * The versions of a definition, in the order given: the one version of the
 * single form (served and stored), or each of `versions` with the
 * definition's `printerColumns`, `status`, `scale` and `selectableFields`
 * where it sets none of its own.
 */
export function normalise(
  options: VersionParts & {
    version?: string | undefined;
    schema?: ObjectSchema | undefined;
    versions?: readonly GivenVersion[] | undefined;
  },
): Version[] {
  const shared: VersionParts = {
    printerColumns: options.printerColumns,
    status: options.status,
    scale: options.scale,
    selectableFields: options.selectableFields,
  };
  if (options.versions === undefined) {
    if (options.version === undefined || options.schema === undefined) {
      throw new TypeError(
        "A definition needs a version and a schema, or versions",
      );
    }
    return [{
      ...shared,
      name: options.version,
      schema: options.schema,
      served: true,
      storage: true,
      deprecated: false,
    }];
  }
  return options.versions.map((v) => ({
    name: v.name,
    schema: v.schema,
    served: v.served ?? true,
    storage: v.storage ?? false,
    deprecated: v.deprecated ?? false,
    deprecationWarning: v.deprecationWarning,
    printerColumns: v.printerColumns ?? shared.printerColumns,
    status: v.status ?? shared.status,
    scale: v.scale ?? shared.scale,
    selectableFields: v.selectableFields ?? shared.selectableFields,
  }));
}

/**
 * What the API server refuses in the versions (beside their schemas), as
 * a list of sentences: not exactly one storage version, a name twice, a
 * deprecation warning on a version not deprecated, scale paths outside
 * `.spec` and `.status`, selectable fields that are not JSONPaths.
 */
export function versionErrors(versions: readonly Version[]): string[] {
  const out: string[] = [];
  const storage = versions.filter((v) => v.storage);
  if (storage.length !== 1) {
    out.push(
      `Exactly one version must be the storage version, not ${storage.length}`,
    );
  }
  const names = new Set<string>();
  for (const v of versions) {
    if (names.has(v.name)) out.push(`The version ${v.name} is named twice`);
    names.add(v.name);
    if (v.deprecationWarning !== undefined && !v.deprecated) {
      out.push(
        `The version ${v.name} has a deprecationWarning but is not deprecated`,
      );
    }
    if (v.scale) {
      const { specReplicasPath, statusReplicasPath, labelSelectorPath } =
        v.scale;
      if (!specReplicasPath.startsWith(".spec.")) {
        out.push(
          `The specReplicasPath ${
            JSON.stringify(specReplicasPath)
          } is not a JSONPath under .spec`,
        );
      }
      if (!statusReplicasPath.startsWith(".status.")) {
        out.push(
          `The statusReplicasPath ${
            JSON.stringify(statusReplicasPath)
          } is not a JSONPath under .status`,
        );
      }
      if (
        labelSelectorPath !== undefined &&
        !/^\.(spec|status)\./.test(labelSelectorPath)
      ) {
        out.push(
          `The labelSelectorPath ${
            JSON.stringify(labelSelectorPath)
          } is not a JSONPath under .spec or .status`,
        );
      }
    }
    for (const path of v.selectableFields ?? []) {
      if (!/^(\.[A-Za-z_][A-Za-z0-9_-]*)+$/.test(path)) {
        out.push(
          `The selectable field ${
            JSON.stringify(path)
          } is not a simple JSONPath such as .spec.color`,
        );
      }
    }
    if ((v.selectableFields?.length ?? 0) > 8) {
      out.push(`The version ${v.name} has more than 8 selectable fields`);
    }
  }
  return out;
}

/** A copy without the fields that are `undefined`. */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(
    Object.entries(value).filter(([, v]) => v !== undefined),
  ) as T;
}

/** The `spec.versions[]` entry of a version, a fresh copy. */
export function crdVersion(
  version: Version,
): CustomResourceDefinitionVersion {
  const out = {
    name: version.name,
    served: version.served,
    storage: version.storage,
  } as CustomResourceDefinitionVersion;
  if (version.deprecated) out.deprecated = true;
  if (version.deprecationWarning !== undefined) {
    out.deprecationWarning = version.deprecationWarning;
  }
  if (version.status || version.scale) {
    out.subresources = {};
    if (version.status) out.subresources.status = {};
    if (version.scale) out.subresources.scale = defined({ ...version.scale });
  }
  if (version.printerColumns?.length) {
    out.additionalPrinterColumns = version.printerColumns.map((c) =>
      defined({ ...c })
    );
  }
  if (version.selectableFields?.length) {
    out.selectableFields = version.selectableFields.map((jsonPath) => ({
      jsonPath,
    }));
  }
  out.schema = { openAPIV3Schema: structuredClone(version.schema) };
  return out;
}
