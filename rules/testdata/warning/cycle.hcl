# Cycles: two unbounded, and four that something bounds.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  observe "target" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace, 'name': self.metadata.name}"
  }
  let "ok" {
    value = "target.exists && self.spec.enabled"
  }
  state "A" {
    initial = true
  }
  state "B" {}
  state "C" {}
  state "D" {}
  state "Failed" {
    final = true
  }
  transition "ping" { # WARNING: Unbounded cycle
    from = [A]
    when = "self.spec.ping"
    to   = B
  }
  transition "pong" {
    from = [B]
    to   = A
  }
  # Bounded by a counter: the guard reads retries, which the route sets.
  transition "retry" {
    from = [A]
    when = "status.?retries.orValue(0) < 3"
    to   = A
    set  = { retries = "status.?retries.orValue(0) + 1" }
  }
  # Bounded by a wait.
  transition "to c" {
    from = [A]
    when = "self.spec.c"
    to   = C
  }
  transition "back from c" {
    from  = [C]
    to    = A
    after = "duration('1m')"
  }
  # Bounded by contradictory guards: ok, then !ok; target.exists, then a
  # missing target.
  transition "to d" {
    from = [A]
    when = "ok"
    to   = D
  }
  transition "back from d" {
    from = [D]
    when = "!ok"
    to   = A
  }
  transition "gone" {
    from = [D]
    when = "target.outcome == 'not_found'"
    to   = A
  }
  transition "fail" {
    from = [D]
    when = "self.spec.fail"
    to   = Failed
  }
  # Bounded by the world: the patch labels the target, whose guard reads
  # it, and the engine observes again before the next step.
  transition "label" {
    from = [A]
    when = "target.exists && target.?metadata.?labels[?'seen'].orValue('') == ''"
    do "label" {
      verb   = patch
      target = "ref(target)"
      body   = "{'metadata': {'labels': {'seen': 'yes'}}}"
    }
    to = A
    on "*" "*" {
      to = Failed
    }
  }
  # A write whose guard reads no observation: nothing it writes can stop it.
  transition "touch" { # WARNING: Unbounded cycle
    from = [A]
    when = "self.spec.touch"
    do "touch" {
      verb   = patch
      target = "ref(target)"
      body   = "{'metadata': {'annotations': {'touched': 'yes'}}}"
    }
    to = A
    on "*" "*" {
      to = Failed
    }
  }
}
