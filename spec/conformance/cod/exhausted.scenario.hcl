# Revision numbers end at 9999999999: with that number taken (here by an
# archived, foreign-owned member) the COD reports an error and allocates
# nothing; it does not wrap around to 1.
scenario "revision numbers exhausted" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "30m"
  objects = ["exhausted-group.yaml", "web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionNumberExhausted"
    reason = "RevisionNumberExhausted"
    fields = {
      "status.conditions[Progressing].status"  = "False"
      "status.conditions[Progressing].message" = "the highest revision in group web is 9999999999; revision numbers end at 9999999999"
      "status.conditions[Available].reason"    = "NoActiveRevision"
    }
  }
  expect "30m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }
}
