# A ClusterObjectDeployment named like the extension already exists and is
# controlled by another owner: the extension does not take it over (no
# apply), reports Progressing=True/Retrying naming the COD's controller and
# Installed=False/Failed, and does not count that COD's revisions as its
# installed bundle.
scenario "a COD of the same name controlled by someone else" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "5m"
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
}
