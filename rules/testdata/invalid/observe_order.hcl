# An observation reads only the observations declared before it.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  observe "first" { # ERROR: Observation reads a later observation
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'default', 'name': second.object.metadata.name}"
  }
  observe "second" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'default', 'name': 'x'}"
  }
  observe "each" {
    for_each = "1" # ERROR: Wrong expression type
    get      = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'default', 'name': 'x'}"
  }
  state "A" {
    initial = true
  }
}
