machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  state "B" {}
  transition "go" {
    from = [A]
    do "touch" { # ERROR: Outcome without route
      verb   = patch
      target = "ref(self)"
      body   = "{'metadata': {'labels': {'a': 'b'}}}"
    }
    to = B
    on "touch" "not_found" {
      to = A
    }
    on "touch" "forbidden" {
      to = A
    }
    on "touch" "conflict" {
      to = A
    }
    on "touch" "invalid" {
      to = A
    }
    on "touch" "unsupported" {
      to = A
    }
    on "touch" "transient" {
      when = "status.?retries.orValue(0) < 3"
      to   = A
    }
  }
}
