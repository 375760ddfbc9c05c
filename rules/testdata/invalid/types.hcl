machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
    recheck = "'soon'" # ERROR: Invalid recheck
  }
  param "wait" {
    type    = duration
    default = "soon" # ERROR: Invalid default
  }
  transition "go" {
    from = [A]
    when = "1 + 1" # ERROR: Wrong expression type
    to   = A
  }
  transition "later" {
    from  = [A]
    to    = A
    after = "param.wait + 1" # ERROR: Invalid expression
  }
}
