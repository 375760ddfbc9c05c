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
  param "before" {
    type    = duration
    default = "-5m" # ERROR: Invalid default
  }
  # A param without a type takes its default's: these are a bool, an int
  # and a string, and the guard below checks them as such.
  param "on" {
    default = true
  }
  param "tries" {
    default = 3
  }
  param "label" {
    default = "soon"
  }
  transition "go" {
    from = [A]
    when = "1 + 1" # ERROR: Wrong expression type
    to   = A
  }
  transition "typed" {
    from = [A]
    when = "param.on && param.tries > 1 && param.label.startsWith('s')"
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
