# Functions: signatures, names, parameters, bodies.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  function "twice(x, x)" { # ERROR: Duplicate parameter
    value = "x + x"
  }
  function "bad-name()" { # ERROR: Invalid function name
    value = "1"
  }
  function "half(x, 2y)" { # ERROR: Invalid parameter name
    value = "x / 2"
  }
  function "unsigned" { # ERROR: Invalid function signature
    value = "1"
  }
  function "old_style(x)" {
    params = [x] # ERROR: Unsupported argument
    value  = "x"
  }
  state "A" {
    initial = true
  }
}
