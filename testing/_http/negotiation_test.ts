import assert from "node:assert/strict";
import { negotiateTable } from "./negotiation.ts";

/** What kubectl get sends for lists, single gets and get -w. */
const KUBECTL =
  "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

Deno.test("table: negotiateTable picks the first clause it can answer", () => {
  assert.equal(negotiateTable(KUBECTL), "meta.k8s.io/v1");
  assert.equal(negotiateTable(null), undefined);
  assert.equal(negotiateTable("application/json"), undefined);
  assert.equal(negotiateTable("*/*"), undefined);
  assert.equal(
    negotiateTable("application/json;as=Table;v=v1beta1;g=meta.k8s.io"),
    "meta.k8s.io/v1beta1",
  );
  // Plain JSON first wins, as the API server reads clauses in order.
  assert.equal(
    negotiateTable(
      "application/json, application/json;as=Table;v=v1;g=meta.k8s.io",
    ),
    undefined,
  );
  // q values reorder the clauses.
  assert.equal(
    negotiateTable(
      "application/json;q=0.5, application/json;as=Table;v=v1;g=meta.k8s.io",
    ),
    "meta.k8s.io/v1",
  );
  // Conversions the fake lacks, and other media types, are skipped.
  assert.equal(
    negotiateTable(
      "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1;g=meta.k8s.io",
    ),
    "meta.k8s.io/v1",
  );
  assert.equal(
    negotiateTable("application/json;as=Table;v=v2;g=meta.k8s.io"),
    undefined,
  );
});
