# Transitions that can never fire.
machine "plain" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  state "B" {
    final = true
  }
  state "C" {
    final = true
  }
  transition "always" {
    from = [A]
    to   = B
  }
  transition "never" { # WARNING: Shadowed transition
    from = [A]
    when = "self.spec.ready"
    to   = C
  }
}

# Shadowed state by state: "a" from A, "b" from B.
machine "union" {
  resource "example.com/v1" "Gadget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  state "B" {}
  state "Done" {
    final = true
  }
  transition "a" {
    from = [A]
    when = "true"
    to   = B
  }
  transition "b" {
    from = [B]
    to   = Done
  }
  transition "late" { # WARNING: Shadowed transition
    from = [A, B]
    when = "self.spec.x"
    to   = Done
  }
}

machine "dup" {
  resource "example.com/v1" "Gizmo" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  state "B" {
    final = true
  }
  state "C" {
    final = true
  }
  transition "first" {
    from = [A]
    when = "self.spec.x == 1"
    to   = B
  }
  transition "second" {
    from = [A]
    when = "self.spec.x  ==  1" # WARNING: Duplicate guard
    to   = C
  }
}
