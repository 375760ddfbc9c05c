# An unmet precondition (the target namespace is missing): the COS reports
# PreconditionsNotMet and retries every 10 seconds; the COD reports
# Progressing=True/RevisionPreconditionsNotMet, which stays subject to the
# three-minute deadline. The namespace appears at minute 4 and the retry
# completes the revision.
scenario "preconditions not met" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "6m"
  objects = ["preconditions-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionPreconditionsNotMet"
    fields = {
      "status.conditions[Progressing].status" = "True"
      "status.conditions[Progressing].reason" = "RevisionPreconditionsNotMet"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    state  = "PreconditionsNotMet"
    fields = { "status.conditions[Ready].reason" = "PreconditionsNotMet" }
  }
  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
  }
  expect "3m" {
    object = "ClusterObjectSet/web-1"
    fields = { "status.conditions[Ready].reason" = "PreconditionsNotMet" }
  }

  at "4m" {
    create = ["namespace-later.yaml"]
  }
  expect "5m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
}
