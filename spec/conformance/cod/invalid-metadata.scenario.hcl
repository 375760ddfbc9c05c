# Invalid template metadata: Progressing=False/InvalidSpecification and no
# revision until it is corrected; correcting it creates revision 1.
scenario "invalid template metadata" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["invalid-metadata-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "InvalidSpecification"
    fields = {
      "status.conditions[Progressing].status" = "False"
      "status.conditions[Progressing].reason" = "InvalidSpecification"
      "status.conditions[Available].reason"   = "NoActiveRevision"
      # No revision yet: latest revision 0, no hash of its template.
      "status.latestRevision" = 0
      "status.templateHash"   = null
    }
  }
  expect "4m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }

  at "5m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { metadata = { labels = { "bad label!" = null, tier = "web" } } } } }
    }
  }
  expect "6m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 1 }
  }
}
