# Event actions: what they say, and the attributes that are not theirs.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  transition "announce" {
    from = [A]
    do "missing" { # ERROR: Missing reason
      verb    = event
      message = "'hi'"
    }
    do "silent" { # ERROR: Missing message
      verb   = event
      reason = Said
    }
    do "typed" {
      verb    = event
      type    = Loud # ERROR: Unknown event type
      reason  = Said
      message = "'hi'"
    }
    do "aimed" {
      verb    = event
      target  = "ref(self)" # ERROR: Unexpected attribute
      reason  = Said
      message = "'hi'"
    }
    do "patch" {
      verb   = patch
      target = "ref(self)"
      body   = "{}"
      reason = Said # ERROR: Unexpected attribute
    }
    do "aimless" { # ERROR: Missing target
      verb = get
    }
    to = A
  }
}
