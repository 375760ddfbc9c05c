# Invalid rendered objects (one object in two phases): the COS reports
# InvalidSpecification and applies nothing; the COD reports
# RevisionInvalidSpecification naming the COS, and keeps it past the
# one-minute deadline (a hard stall over ProgressDeadlineExceeded).
scenario "invalid revision objects" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "5m"
  objects = ["invalid-revision-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/web-1"
    state  = "InvalidSpecification"
    fields = {
      "status.conditions[Ready].reason"  = "InvalidSpecification"
      "status.conditions[Ready].message" = "phases[1] (two) objects[0]: duplicate object ConfigMap default/web-a, also in phases[0] (one) objects[0]"
    }
  }
  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionInvalidSpecification"
    fields = {
      "status.conditions[Progressing].status"  = "False"
      "status.conditions[Progressing].message" = "ClusterObjectSet web-1: phases[1] (two) objects[0]: duplicate object ConfigMap default/web-a, also in phases[0] (one) objects[0]"
    }
  }
  expect "5m" {
    writes {
      verb  = "patch"
      kind  = "ConfigMap"
      count = 0
    }
  }
}
