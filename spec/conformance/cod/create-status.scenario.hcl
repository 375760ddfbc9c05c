# COD-14 COD-17 COD-23: the creation of a revision records it in the status
# itself (latestRevision, templateHash), not only through the report after
# it. Only the COD machine runs (the ClusterObjectSet CRD is installed
# from spec/crds), so no revision rollout wakes the COD. It adopts
# the archived web-1, creates web-2, and prunes web-1 (limit 0): the API
# server times out that delete, and the COD waits retry_interval (10s), no
# report in between. Its status names web-2 and its template's hash from
# the start; the retry at 10s deletes web-1 and reports.
scenario "a creation records the revision in the status" {
  rules   = ["clusterobjectdeployment"]
  run_for = "1m"
  objects = ["../../crds/olm.operatorframework.io_clusterobjectsets.yaml", "create-status-objects.yaml"]

  fault {
    verb     = "delete"
    kind     = "ClusterObjectSet"
    identity = ""
    at_calls = [1]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "9s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "PruneFailed"
    fields = {
      "status.latestRevision" = 2
      "status.templateHash"   = "65eccc0d"
    }
  }
  expect "9s" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  expect "10s" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "10s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "NewClusterObjectSetProgressing"
    fields = {
      "status.latestRevision" = 2
      "status.templateHash"   = "65eccc0d"
    }
  }
}
