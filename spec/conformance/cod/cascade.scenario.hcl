# Deleting a COD cascades: garbage collection removes its revisions, and
# theirs the objects they control. The collector is a controller: it acts
# a second after the COD goes, and again a second after each revision.
scenario "delete cascades" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "5m"
  objects = ["web-cod.yaml"]

  expect "1m" {
    object = "ConfigMap/default/web-a"
    fields = { "metadata.ownerReferences.0.name" = "web-1" }
  }
  at "2m" {
    delete = ["ClusterObjectDeployment/web"]
  }
  expect "2m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  expect "3m" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "3m" {
    object = "ConfigMap/default/web-a"
    absent = true
  }
}
