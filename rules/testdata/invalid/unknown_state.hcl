machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  transition "go" {
    from = [A]
    to   = Appled # ERROR: Unknown state
  }
  transition "back" {
    from = [Nowhere] # ERROR: Unknown state
    to   = A
  }
}
