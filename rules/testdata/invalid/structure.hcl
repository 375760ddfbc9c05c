machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Sideways # ERROR: Invalid scope
  }
  colour = "blue" # ERROR: Unsupported argument
  state "A" {
    initial = true
  }
  state "A" { # ERROR: Duplicate state
  }
  param "self" { # ERROR: Reserved name
    type    = int
    default = 1
  }
  transition "interp" {
    from = [A]
    when = "${self}" # ERROR: Invalid expression
    to   = A
  }
  transition "bare" {
    from = [A]
    when = self.ready # ERROR: Invalid expression
    to   = A
  }
  transition "act" {
    from = [A]
    do "x" {
      verb   = explode # ERROR: Unknown verb
      target = "ref(self)"
    }
    to = A
  }
  state "Jittery" {
    jitter = "duration('5s')" # ERROR: Jitter without recheck
  }
}
