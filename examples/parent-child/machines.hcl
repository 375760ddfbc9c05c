# Two machines in one engine: a Parent creates one Child per entry of its
# spec and is Ready when every Child is Ready. The Child machine drives each
# Child on its own; the Parent observes its children by label. A write to a
# Child wakes the Parent, because the Parent is the Child's controller owner.
machine "parent" {
  resource "example.statecraft.dev/v1" "Parent" {
    scope = Namespaced
  }

  observe "children" {
    list = "{'apiVersion': 'example.statecraft.dev/v1', 'kind': 'Child', 'namespace': self.metadata.namespace, 'labelSelector': 'parent=' + self.metadata.name}"
  }

  let "missing" {
    value = "self.spec.children.filter(n, !children.items.exists(c, c.metadata.name == self.metadata.name + '-' + n))"
  }

  let "all_ready" {
    value = "size(missing) == 0 && children.items.all(c, c.?status.?state.orValue('') == 'Ready')"
  }

  state "Creating" {
    initial    = true
    conditions = { Ready = False }
  }
  state "Waiting" {
    conditions = { Ready = False }
  }
  state "Ready" {
    outcome    = Success
    final      = true
    conditions = { Ready = True }
  }

  transition "create children" {
    from = [Creating]
    when = "size(missing) > 0"
    do "create" {
      verb     = create
      for_each = "missing"
      target   = "{'apiVersion': 'example.statecraft.dev/v1', 'kind': 'Child', 'namespace': self.metadata.namespace, 'name': self.metadata.name + '-' + item}"
      body     = <<-CEL
        {
          'apiVersion': 'example.statecraft.dev/v1',
          'kind': 'Child',
          'metadata': {
            'name': self.metadata.name + '-' + item,
            'namespace': self.metadata.namespace,
            'labels': {'parent': self.metadata.name},
            'ownerReferences': [{
              'apiVersion': self.apiVersion, 'kind': self.kind, 'name': self.metadata.name,
              'uid': self.metadata.uid, 'controller': true, 'blockOwnerDeletion': true
            }]
          },
          'spec': {'steps': 2}
        }
      CEL
    }
    to     = Waiting
    reason = ChildrenCreated
    on "*" "*" {
      to     = Creating
      reason = CreateFailed
      after  = "duration('1m')"
    }
  }

  transition "nothing to create" {
    from   = [Creating]
    to     = Waiting
    reason = ChildrenExist
  }

  transition "children ready" {
    from   = [Waiting]
    when   = "all_ready"
    to     = Ready
    reason = AllChildrenReady
  }
}

machine "child" {
  resource "example.statecraft.dev/v1" "Child" {
    scope = Namespaced
  }

  state "Starting" {
    initial = true
  }
  state "Ready" {
    outcome = Success
    final   = true
  }

  # A child takes one minute per step to become Ready.
  transition "step" {
    from   = [Starting]
    when   = "status.?step.orValue(0) < self.spec.steps"
    to     = Starting
    reason = Stepping
    set    = { step = "status.?step.orValue(0) + 1" }
    after  = "duration('1m')"
  }

  transition "ready" {
    from   = [Starting]
    to     = Ready
    reason = Ready
  }
}
