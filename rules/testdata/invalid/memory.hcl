# Where a machine keeps its memory.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Cluster
  }
  memory           = companion # ERROR: Companion memory without a namespace
  memory_key       = "x" # ERROR: memory_key without annotation memory
  state "A" {
    initial = true
  }
}
machine "n" {
  resource "example.com/v1" "Gadget" {
    scope = Namespaced
  }
  memory     = annotation
  memory_key = "not a key!" # ERROR: Invalid annotation key
  state "A" {
    initial = true
  }
}
machine "o" {
  resource "example.com/v1" "Gizmo" {
    scope = Namespaced
  }
  memory = elsewhere # ERROR: Unknown memory
  state "A" {
    initial = true
  }
}
