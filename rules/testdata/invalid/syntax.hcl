machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  transition "go" {
    from = [A
    to   = A # ERROR: Missing item separator
  }
}
