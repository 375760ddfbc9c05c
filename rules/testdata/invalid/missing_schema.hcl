machine "op" {
  resource "rightsizing.kubex.ai/v1alpha1" "Missing" {
    scope  = Namespaced
    schema = "no/such/crd.yaml" # ERROR: Cannot read schema
  }
  state "A" {
    initial = true
  }
}
