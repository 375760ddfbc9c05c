# COD-42 COD-45 COD-46 COD-29 COD-60: every report records the revision the COD
# stands on, one it adopted included. Only the COD machine runs (the
# ClusterObjectSet CRD is installed from spec/crds). own and unm each adopt
# revision 1, made from their template (its template-hash label), so it is
# their latest revision, though a higher active member blocks them: own-2
# is controlled by another controller (OwnerConflict), unm-2 has no
# controller and no managed-by label (UnmanagedRevision); each reports
# latestRevision 1 and the template's hash. exh has no revision of its own
# and no number left (RevisionNumberExhausted): it reports latestRevision 0
# and no hash. inv adopts inv-1, labelled with the hash of inv's template,
# though that template has an invalid label (InvalidSpecification): no
# revision is created, and it reports inv-1 and the hash.
scenario "reports record an adopted revision" {
  rules   = ["clusterobjectdeployment"]
  run_for = "1m"
  objects = ["../../crds/olm.operatorframework.io_clusterobjectsets.yaml", "report-adopted-objects.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/own-1"
    fields = { "metadata.ownerReferences.0.name" = "own" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/own"
    state  = "OwnerConflict"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "65eccc0d"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/unm-1"
    fields = { "metadata.ownerReferences.0.name" = "unm" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/unm"
    state  = "UnmanagedRevision"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "65eccc0d"
    }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/exh"
    state  = "RevisionNumberExhausted"
    fields = {
      "status.latestRevision" = 0
      "status.templateHash"   = null
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/inv-1"
    fields = { "metadata.ownerReferences.0.name" = "inv" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/inv"
    state  = "InvalidSpecification"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "6ea4b235"
    }
  }
  expect "1m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }
}
