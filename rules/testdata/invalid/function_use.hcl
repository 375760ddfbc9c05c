# Functions are checked where they are used; a body must parse, and a
# function may not take the name of a CEL function.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  function "size(x)" { # ERROR: Function shadows a built-in
    value = "1"
  }
  function "broken(x)" {
    value = "x +" # ERROR: Invalid expression
  }
  function "key(o)" { value = "o.metadata.name" }
  state "A" {
    initial = true
  }
  transition "t" {
    from = [A]
    when = "key(self, 1) == 'x'" # ERROR: Invalid expression
    to   = A
  }
}
