# A revision whose Secret appears late (seed 002: RevisionPreconditionsNotMet
# "is a retrying state"; "a revision that later completes records
# status.completedAt"). The COD's revision refers to a Secret created at
# minute 2: until then the COS reports PreconditionsNotMet and the COD
# Progressing=True/RevisionPreconditionsNotMet; once the Secret exists the
# next retry (every 10 seconds, at 2m) applies the ConfigMap once, reads it
# back, and the revision completes: Ready, status.completedAt, and the COD
# Progressed. Nothing is applied again afterwards: one server-side apply of
# the ConfigMap in ten minutes. Once the COS, in PreconditionsNotMet when
# its objects resolved, never recorded the kinds it must read, so it never
# saw the ConfigMap it applied and applied it again at every wake-up
# (RollingOut for good); the policy now reads the kinds of its resolved
# objects at every reconcile (let "kinds", observe "live").
scenario "a revision whose Secret appears late completes" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["secret-late-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/late-1"
    state  = "PreconditionsNotMet"
    fields = {
      "status.conditions[Ready].status" = "False"
      "status.conditions[Ready].reason" = "PreconditionsNotMet"
      "status.completedAt"              = null
    }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/late"
    state  = "RevisionPreconditionsNotMet"
    fields = {
      "status.conditions[Progressing].status" = "True"
      "status.conditions[Progressing].reason" = "RevisionPreconditionsNotMet"
    }
  }
  expect "1m" {
    object = "ConfigMap/default/from-late-secret"
    absent = true
  }

  at "2m" {
    create = ["secret-late-secret.yaml"]
  }

  expect "2m" {
    object = "ClusterObjectSet/late-1"
    state  = "Ready"
    fields = {
      "status.conditions[Ready].status" = "True"
      "status.completedAt"              = "2026-01-01T00:02:00Z"
    }
  }
  expect "2m" {
    object = "ConfigMap/default/from-late-secret"
    fields = {
      "data.source"                     = "late secret"
      "metadata.ownerReferences.0.name" = "late-1"
    }
  }
  expect "2m" {
    object = "ClusterObjectDeployment/late"
    state  = "Progressed"
    fields = { "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed" }
  }
  expect "10m" {
    writes {
      verb  = "patch"
      kind  = "ConfigMap"
      count = 1
    }
  }
}
