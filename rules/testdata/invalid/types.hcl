machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
    recheck = "'soon'" # ERROR: Invalid recheck
  }
  state "B" {
    recheck = "duration('1m')"
    jitter  = "5" # ERROR: Wrong expression type
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
  transition "computed reason" {
    from    = [A]
    reason  = "1 + 1" # ERROR: Wrong expression type
    reasons = [Two]
  }
}
