# Objects may be stored in immutable Secrets and referenced with secretRef:
# the COS renders the manifest from the Secret's key. A Secret that is not
# immutable makes the revision invalid (RevisionInvalidSpecification).
scenario "objects from Secrets" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "5m"
  objects = ["secret-objects.yaml", "secret-cods.yaml"]

  expect "1m" {
    object = "ConfigMap/default/from-secret"
    fields = { "data.source" = "secret", "metadata.ownerReferences.0.name" = "frozen-1" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/frozen"
    state  = "Progressed"
  }
  expect "1m" {
    object = "ClusterObjectDeployment/mutable"
    state  = "RevisionInvalidSpecification"
    fields = { "status.conditions[Progressing].message" = "ClusterObjectSet mutable-1: phases[0] (config) objects[0]: Secret default/mutable must be immutable" }
  }
}
