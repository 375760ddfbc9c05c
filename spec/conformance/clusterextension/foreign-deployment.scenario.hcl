# A ClusterObjectDeployment named like the extension already exists and is
# controlled by another owner: the extension does not take it over (no
# apply), reports Progressing=True/Retrying naming the COD's controller and
# Installed=False/Failed, and does not count that COD's revisions as its
# installed bundle. Once the other owner lets go, the extension takes the COD
# over at its next poll.
scenario "a COD of the same name controlled by someone else" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "25m"
  objects = ["foreign-cod.yaml", "cache-v1.yaml"]

  expect "1m" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.conditions[Progressing].reason"  = "Retrying"
      "status.conditions[Progressing].message" = "ClusterObjectDeployment cache is controlled by Other someone; it is not taken over"
      "status.conditions[Installed].status"    = "False"
      "status.conditions[Installed].reason"    = "Failed"
      "status.install"                         = null
    }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/cache"
    fields = { "metadata.ownerReferences.0.kind" = "Other", "metadata.ownerReferences.1" = null }
  }
  expect "4m" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 0
    }
  }

  # The extension's poll at 10m reads the revisions again: the foreign
  # COD's revision, complete, is still not the extension's installed
  # bundle.
  expect "10m" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.install"                      = null
      "status.activeRevisions.0"            = null
      "status.conditions[Installed].status" = "False"
    }
  }
  expect "10m" {
    object = "ClusterObjectSet/cache-1"
    state  = "Ready"
  }

  # The other owner lets go of the COD at 12m. A write to the COD wakes
  # only its controller owner's machine, so the extension sees it at its
  # next poll, poll_interval (10m) after it last reconciled (at 10m), and
  # then takes the COD over.
  at "12m" {
    patch "ClusterObjectDeployment/cache" {
      merge = { metadata = { ownerReferences = null } }
    }
  }
  expect "19m59s" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
  }
  expect "19m59s" {
    writes {
      verb     = "patch"
      kind     = "ClusterObjectDeployment"
      identity = "statecraft"
      count    = 0
    }
  }
  expect "20m" {
    writes {
      verb     = "patch"
      kind     = "ClusterObjectDeployment"
      identity = "statecraft"
      count    = 1
    }
  }
  expect "21m" {
    object = "ClusterObjectDeployment/cache"
    fields = { "metadata.ownerReferences.0.kind" = "ClusterExtension", "metadata.ownerReferences.0.name" = "cache", "metadata.ownerReferences.0.controller" = true }
  }
  expect "21m" {
    object = "ClusterExtension/cache"
    state  = "Installed"
    reason = "Succeeded"
    fields = { "status.install.bundle.version" = "1.0.0" }
  }
}
