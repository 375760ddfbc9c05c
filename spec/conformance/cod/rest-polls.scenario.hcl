# COD-65 COD-69 COD-47: a deployment at rest reads its revisions again every
# poll interval (10m), no sooner, wherever its deadline stands: waiting on a
# revision's preconditions with no deadline (poll-wait), waiting for the
# garbage collection of a stale member, no revision of its own to time
# (poll-gc, deadline 5m), and being deleted, held by a finalizer, in
# RevisionPreconditionsNotMet (poll-del-r) and in Progressing (poll-del-p)
# when their two-minute deadline passes: the wake-up at the deadline finds
# them deleting (no report), and the next is a poll interval later, not a
# second. The count of ClusterObjectSet lists over 30 minutes pins it; a
# recheck of one second after a passed (or absent) deadline adds hundreds.
scenario "rests poll at the poll interval" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "30m"
  objects = ["rest-polls.yaml"]

  expect "30s" {
    object = "ClusterObjectDeployment/poll-wait"
    state  = "RevisionPreconditionsNotMet"
    fields = { "status.conditions[Progressing].reason" = "RevisionPreconditionsNotMet" }
  }
  expect "30s" {
    object = "ClusterObjectDeployment/poll-gc"
    state  = "Progressing"
    fields = { "status.conditions[Progressing].message" = "waiting for garbage collection of ClusterObjectSet poll-gc-1, controlled by an earlier ClusterObjectDeployment poll-gc (uid uid-of-an-earlier-poll-gc)" }
  }
  expect "30s" {
    object = "ClusterObjectDeployment/poll-del-r"
    state  = "RevisionPreconditionsNotMet"
  }
  expect "30s" {
    object = "ClusterObjectDeployment/poll-del-p"
    state  = "Progressing"
    fields = { "status.conditions[Progressing].message" = "ClusterObjectSet poll-del-p-1 is rolling out; see its Ready condition" }
  }

  at "1m" {
    delete = ["ClusterObjectDeployment/poll-del-r", "ClusterObjectDeployment/poll-del-p"]
  }

  # Past the deadlines: the deleting deployments report nothing more.
  expect "3m" {
    object = "ClusterObjectDeployment/poll-del-r"
    state  = "RevisionPreconditionsNotMet"
    fields = { "metadata.deletionTimestamp" = "2026-01-01T00:01:00Z" }
  }
  expect "3m" {
    object = "ClusterObjectDeployment/poll-del-p"
    state  = "Progressing"
    fields = { "metadata.deletionTimestamp" = "2026-01-01T00:01:00Z" }
  }
  expect "30m" {
    object = "ClusterObjectDeployment/poll-gc"
    state  = "Progressing"
  }
  expect "30m" {
    reads {
      verb  = "list"
      kind  = "ClusterObjectSet"
      count = 451
    }
  }
}
