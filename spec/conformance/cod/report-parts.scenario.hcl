# COD-51 COD-52 COD-40: a report is written again for each part that is not
# current, and only for those: a status with no Available condition (the
# Available condition is added, not an evaluation error), a stale
# status.message under a current reason, an Available condition without
# observedGeneration (generation 1: it is filled in), an Available
# condition with the current message under another reason. A controller reference
# carrying this deployment's uid is its own, whatever kind and name it
# states: rs-own's revision is owned, no OwnerConflict, nothing written.
scenario "report parts" {
  rules    = ["clusterobjectdeployment", "clusterobjectset"]
  run_for  = "2m"
  recorded = true
  objects  = ["report-parts.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/rs-avail"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = {
      "status.conditions[Available].status"  = "True"
      "status.conditions[Available].reason"  = "Available"
      "status.conditions[Available].message" = "ready: rs-avail-1"
    }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/rs-msg"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.message" = "ClusterObjectSet rs-msg-1 completed its rollout at 2026-01-01T00:00:00Z" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/rs-gen"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.conditions[Available].observedGeneration" = 1 }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/rs-own"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = {
      "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed"
      "status.latestRevision"                 = 1
    }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/rs-reason"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.conditions[Available].reason" = "Available" }
  }
  # Four status writes (rs-avail's, rs-msg's, rs-gen's, rs-reason's); no
  # revision.
  expect "2m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
    writes {
      verb     = "status"
      kind     = "ClusterObjectDeployment"
      identity = "statecraft"
      count    = 4
    }
  }
}
