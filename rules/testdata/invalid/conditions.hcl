# Condition blocks: one per type, a status required.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial    = true
    conditions = { Ready = True }
    condition "Ready" { # ERROR: Duplicate condition
      status = "'True'"
    }
    condition "Other" { # ERROR: Missing required argument
      reason = "'X'"
    }
  }
}
