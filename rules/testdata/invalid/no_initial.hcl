machine "m" { # ERROR: No initial state
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {}
}
