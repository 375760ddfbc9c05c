# A param without a type takes its default's; a string that reads as a
# duration could be either.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  param "timeout" {
    default = "5m" # ERROR: Param type needed
  }
  state "A" {
    initial = true
    recheck = "param.timeout"
  }
}
