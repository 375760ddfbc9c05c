# Functions: names, parameters, bodies.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  function "twice" {
    params = [x, x] # ERROR: Duplicate parameter
    value  = "x + x"
  }
  function "bad-name" { # ERROR: Invalid function name
    value = "1"
  }
  state "A" {
    initial = true
  }
}
