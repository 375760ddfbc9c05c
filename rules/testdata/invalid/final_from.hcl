machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  state "Done" {
    final = true
  }
  transition "finish" {
    from = [A]
    to   = Done
  }
  transition "again" {
    from = [Done] # ERROR: Transition from a final state
    to   = A
  }
}
