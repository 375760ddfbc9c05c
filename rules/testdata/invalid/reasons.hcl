# Computed reasons: a reason computed as CEL needs its declared set, of at
# least one reason, each once (types.hcl: the expression must be a string).
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  transition "computed" {
    from    = [A]
    to      = A
    reason  = "self.spec.?why.orValue('') == '' ? 'Quiet' : 'Loud'"
    reasons = [Quiet, Loud]
  }
  transition "no reason" {
    from    = [A]
    to      = A
    reasons = [X] # ERROR: Reasons without reason
  }
  transition "empty set" {
    from    = [A]
    to      = A
    reason  = "'X'"
    reasons = [] # ERROR: Empty reasons
  }
  transition "twice" {
    from    = [A]
    to      = A
    reason  = "'X'"
    reasons = [X, X] # ERROR: Duplicate reason
  }
}
