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
    when = "self.spec.ready && unknown_thing" # ERROR: Invalid expression
    to   = B
  }
}
