# A state no transition leads to, and a non-final state nothing leaves.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  state "B" { # WARNING: State with no way out
    recheck = "duration('1m')"
  }
  state "Done" {
    final = true
  }
  state "Orphan" { # WARNING: Unreachable state
    final = true
  }
  transition "go" {
    from = [A]
    when = "self.spec.ready"
    to   = B
  }
  transition "poll" {
    from  = [B]
    to    = B
    after = "duration('1m')"
  }
  transition "finish" {
    from = [A]
    when = "self.spec.done"
    to   = Done
  }
}
