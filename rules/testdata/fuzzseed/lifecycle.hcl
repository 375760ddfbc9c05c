# A small two-state lifecycle with a get observation, a create and a
# delete, a json patch and a status write: a seed for FuzzLoadCompile.
machine "pair" {
  resource "example.com/v1" "Pair" {
    scope = Cluster
  }
  observe "peer" {
    get = "{'apiVersion': 'v1', 'kind': 'Namespace', 'name': self.metadata.name}"
  }
  state "Absent" {
    initial = true
  }
  state "Present" {
    outcome = Success
    recheck = "has(status.until) ? timestamp(status.until) : now + duration('10m')"
  }
  transition "create" {
    from = [Absent]
    when = "peer.outcome == 'not_found'"
    do "make" {
      verb   = create
      target = "{'apiVersion': 'v1', 'kind': 'Namespace', 'name': self.metadata.name}"
      body   = "{'apiVersion': 'v1', 'kind': 'Namespace', 'metadata': {'name': self.metadata.name}}"
    }
    to     = Present
    reason = Created
    set    = { until = "now + duration('1h')" }
    on "make" "*" {
      reason = CreateFailed
      after  = "duration('30s')"
    }
  }
  transition "adopt" {
    from = [Absent]
    when = "peer.exists"
    do "tag" {
      verb   = patch
      type   = json
      target = "ref(peer.object)"
      body   = "[{'op': 'add', 'path': '/metadata/annotations', 'value': {'pair': 'yes'}}]"
    }
    to     = Present
    reason = Adopted
    on "*" "*" {
      reason = AdoptFailed
      after  = "duration('30s')"
    }
  }
  transition "expire" {
    from = [Present]
    when = "has(status.until) && now >= timestamp(status.until)"
    do "drop" {
      verb        = delete
      target      = "ref(peer.object)"
      propagation = Foreground
      when        = "peer.exists"
    }
    to     = Absent
    reason = Expired
    set    = { until = "null" }
    on "drop" "*" {
      reason = DeleteFailed
      after  = "duration('1m')"
    }
  }
}
