# A first install blocked by an ownership conflict: revision 1 of group
# cache exists and is controlled by another controller. The extension's COD
# reports Progressing=False/OwnerConflict and creates no revision; the
# extension maps it to Progressing=True/Retrying with the COD's message
# unchanged (the conflicting revision and its controller), and, with
# nothing installed, Installed=False/Failed. When the blocking revision is
# removed, reconciliation resumes on its own: the COD creates its revision
# at its next poll, and its status write wakes the extension, which reports
# the bundle installed. Nobody touches the extension.
scenario "owner conflict on first install" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "15m"
  objects = ["foreign-cache-1.yaml", "cache-v1.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/cache"
    state  = "OwnerConflict"
    fields = {
      "metadata.ownerReferences.0.kind"        = "ClusterExtension"
      "status.conditions[Progressing].status"  = "False"
      "status.conditions[Progressing].reason"  = "OwnerConflict"
      "status.conditions[Progressing].message" = "ClusterObjectSet cache-1 (revision 1) is controlled by Other someone; no new revision is created"
    }
  }
  expect "1m" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.message"                         = "ClusterObjectSet cache-1 (revision 1) is controlled by Other someone; no new revision is created"
      "status.conditions[Progressing].status"  = "True"
      "status.conditions[Progressing].reason"  = "Retrying"
      "status.conditions[Progressing].message" = "ClusterObjectSet cache-1 (revision 1) is controlled by Other someone; no new revision is created"
      "status.conditions[Installed].status"    = "False"
      "status.conditions[Installed].reason"    = "Failed"
      "status.conditions[Installed].message"   = "No bundle installed"
      "status.install"                         = null
      "status.activeRevisions"                 = []
    }
  }
  # The foreign revision is not the extension's: untouched, not installed.
  expect "1m" {
    object = "ClusterObjectSet/cache-1"
    fields = { "metadata.ownerReferences.0.uid" = "other-uid", "metadata.ownerReferences.1" = null }
  }
  expect "4m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }

  # The conflict clears.
  at "5m" {
    delete = ["ClusterObjectSet/cache-1"]
  }

  expect "11m" {
    object = "ClusterExtension/cache"
    state  = "Installed"
    reason = "Succeeded"
    fields = {
      "status.conditions[Progressing].reason"  = "Succeeded"
      "status.conditions[Progressing].message" = "Desired state reached"
      "status.conditions[Installed].status"    = "True"
      "status.conditions[Installed].reason"    = "Succeeded"
      "status.conditions[Installed].message"   = "Installed bundle cache-operator.v1.0.0 successfully"
      "status.install.bundle.name"             = "cache-operator.v1.0.0"
      "status.install.bundle.version"          = "1.0.0"
      "status.activeRevisions.0.name"          = "cache-1"
    }
  }
  expect "11m" {
    object = "ClusterObjectSet/cache-1"
    state  = "Ready"
    fields = { "metadata.ownerReferences.0.kind" = "ClusterObjectDeployment", "metadata.ownerReferences.0.name" = "cache" }
  }
  expect "11m" {
    object = "ConfigMap/default/cache-config"
    fields = { "data.version" = "1.0.0" }
  }
  # The extension applied its COD once; nobody edited it.
  expect "14m" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 1
    }
  }
}
