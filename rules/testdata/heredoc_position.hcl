machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  let "x" {
    value = <<-CEL
      self.spec.size > 3 &&
        missing_name
    CEL
  }
  transition "go" {
    from = [A]
    when = "x"
    to   = A
  }
}
