# The extension reads its report from the COD's Progressing condition. With
# no ClusterObjectDeployment machine running, the scenario plays the COD's
# reports. Before the COD reports anything, the extension says it waits for
# it (RollingOut, Installed=False/Absent); NewClusterObjectSetProgressing
# gives RollingOut with the COD's message; any other reason but
# NewClusterObjectSetProgressed (OwnerConflict here) gives Retrying with
# the COD's message unchanged and Installed=False/Failed;
# NewClusterObjectSetProgressed without a completed revision of the current
# template is still RollingOut, waiting. Each COD status write wakes the
# extension (its controller owner) at once. The COD is served from the CRD
# statecraft ships for it, staged here since no machine of the scenario
# drives it.
scenario "the extension follows the COD's Progressing condition" {
  rules   = ["clusterextension"]
  run_for = "10m"
  objects = ["../../crds/olm.operatorframework.io_clusterobjectdeployments.yaml", "cod-report-cod.yaml", "cache-v1.yaml"]

  expect "1m" {
    object = "ClusterExtension/cache"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = {
      "status.message"                         = "waiting for ClusterObjectDeployment cache to roll out bundle cache-operator.v1.0.0"
      "status.conditions[Progressing].status"  = "True"
      "status.conditions[Progressing].reason"  = "RollingOut"
      "status.conditions[Progressing].message" = "waiting for ClusterObjectDeployment cache to roll out bundle cache-operator.v1.0.0"
      "status.conditions[Installed].status"    = "False"
      "status.conditions[Installed].reason"    = "Absent"
      "status.conditions[Installed].message"   = "No bundle installed"
      "status.install"                         = null
    }
  }

  at "2m" {
    patch "ClusterObjectDeployment/cache" {
      status = {
        conditions = [{ type = "Progressing", status = "True", reason = "NewClusterObjectSetProgressing", message = "ClusterObjectSet cache-1 is rolling out", lastTransitionTime = "2026-01-01T00:02:00Z" }]
      }
    }
  }
  expect "2m" {
    object = "ClusterExtension/cache"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = {
      "status.message"                        = "ClusterObjectSet cache-1 is rolling out"
      "status.conditions[Progressing].reason" = "RollingOut"
      "status.conditions[Installed].reason"   = "Absent"
    }
  }

  at "3m" {
    patch "ClusterObjectDeployment/cache" {
      status = {
        conditions = [{ type = "Progressing", status = "True", reason = "OwnerConflict", message = "ClusterObjectSet cache-1 (revision 1) is controlled by Other someone; no new revision is created", lastTransitionTime = "2026-01-01T00:03:00Z" }]
      }
    }
  }
  expect "3m" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.message"                         = "ClusterObjectSet cache-1 (revision 1) is controlled by Other someone; no new revision is created"
      "status.conditions[Progressing].reason"  = "Retrying"
      "status.conditions[Progressing].message" = "ClusterObjectSet cache-1 (revision 1) is controlled by Other someone; no new revision is created"
      "status.conditions[Installed].status"    = "False"
      "status.conditions[Installed].reason"    = "Failed"
    }
  }

  at "4m" {
    patch "ClusterObjectDeployment/cache" {
      status = {
        conditions = [{ type = "Progressing", status = "True", reason = "NewClusterObjectSetProgressed", message = "ClusterObjectSet cache-1 progressed", lastTransitionTime = "2026-01-01T00:04:00Z" }]
      }
    }
  }
  expect "4m" {
    object = "ClusterExtension/cache"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = {
      "status.message"                      = "waiting for ClusterObjectDeployment cache to roll out bundle cache-operator.v1.0.0"
      "status.conditions[Installed].reason" = "Absent"
    }
  }
  # The COD was applied once; each report was written once.
  expect "10m" {
    writes {
      verb     = "patch"
      kind     = "ClusterObjectDeployment"
      identity = "statecraft"
      count    = 1
    }
  }
  expect "10m" {
    writes {
      verb     = "status"
      kind     = "ClusterExtension"
      identity = "statecraft"
      count    = 4
    }
  }
}
