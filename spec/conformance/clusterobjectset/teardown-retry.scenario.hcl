# Teardown when a delete fails. td-1 is archived at 1m; deleting its
# ConfigMap fails (the server is unavailable): TearingDown with reason
# TeardownError, Ready=False, and the delete is tried again retry_interval
# (10s) later, not sooner; it succeeds, and the revision is Archived with
# Ready=False. nf-1 is archived at 2m; its delete is answered NotFound
# without being carried out (a stale answer): the revision reads its
# objects again at once, finds the ConfigMap still there and deletes it in
# the same second.
scenario "a failed teardown step is retried" {
  rules   = ["clusterobjectset"]
  run_for = "4m"
  objects = ["teardown-sets.yaml"]

  expect "30s" {
    object = "ClusterObjectSet/td-1"
    state  = "Ready"
  }

  at "1m" {
    patch "ClusterObjectSet/td-1" {
      merge = { spec = { lifecycleState = "Archived" } }
    }
    fault {
      verb     = "delete"
      kind     = "ConfigMap"
      at_calls = [1]
      outcome  = "transient"
      message  = "etcdserver: request timed out"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/td-1"
    state  = "TearingDown"
    reason = "TeardownError"
    fields = { "status.conditions[Ready].status" = "False", "status.conditions[Ready].reason" = "TeardownError" }
  }
  expect "1m9s" {
    object = "ConfigMap/default/td-config"
    fields = { "data.k" = "v" }
  }
  expect "1m9s" {
    object = "ClusterObjectSet/td-1"
    state  = "TearingDown"
    reason = "TeardownError"
  }
  expect "1m10s" {
    object = "ConfigMap/default/td-config"
    absent = true
  }
  expect "1m10s" {
    object = "ClusterObjectSet/td-1"
    state  = "Archived"
    reason = "Archived"
    fields = {
      "status.message"                  = "teardown complete"
      "status.conditions[Ready].status" = "False"
      "status.conditions[Ready].reason" = "Archived"
      "status.activePhase"              = null
    }
  }
  expect "1m10s" {
    writes {
      verb     = "delete"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 2
    }
  }

  at "2m" {
    patch "ClusterObjectSet/nf-1" {
      merge = { spec = { lifecycleState = "Archived" } }
    }
    fault {
      verb     = "delete"
      kind     = "ConfigMap"
      at_calls = [1]
      outcome  = "not_found"
    }
  }
  expect "2m" {
    object = "ConfigMap/default/nf-config"
    absent = true
  }
  expect "2m" {
    object = "ClusterObjectSet/nf-1"
    state  = "Archived"
    reason = "Archived"
    fields = { "status.conditions[Ready].status" = "False" }
  }
  expect "2m" {
    writes {
      verb     = "delete"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 4
    }
  }

  # fin-1's ConfigMap gets another controller's finalizer at 2m20s; fin-1 is
  # archived at 2m30s: its delete leaves the ConfigMap being deleted, and
  # the revision waits in TearingDown for phase config. The finalizer goes
  # at 2m40s; the revision's recheck, retry_interval after it last looked,
  # finds the ConfigMap gone at 2m40s.
  at "2m20s" {
    patch "ConfigMap/default/fin-config" {
      merge = { metadata = { finalizers = ["example.com/hold"] } }
    }
  }
  at "2m30s" {
    patch "ClusterObjectSet/fin-1" {
      merge = { spec = { lifecycleState = "Archived" } }
    }
  }
  expect "2m30s" {
    object = "ClusterObjectSet/fin-1"
    state  = "TearingDown"
    reason = "TearingDown"
    fields = {
      "status.message"                  = "phase config: waiting for the deletion of ConfigMap fin-config"
      "status.activePhase"              = "config"
      "status.conditions[Ready].status" = "False"
    }
  }
  at "2m40s" {
    patch "ConfigMap/default/fin-config" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "2m40s" {
    object = "ClusterObjectSet/fin-1"
    state  = "Archived"
    fields = { "status.activePhase" = null }
  }

  # Teardown deletes what the revision controls and patches nothing (a
  # release is only for objects another revision took over): the only
  # ConfigMap patches are the three applies at the start.
  expect "4m" {
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 3
    }
  }
  # An archived revision does not list its siblings (it has no
  # predecessors to archive): after 2m30s, when every revision here is
  # archived, fin-1's teardown lists none.
  expect "2m31s" {
    reads {
      verb  = "list"
      kind  = "ClusterObjectSet"
      count = 10
    }
  }
  expect "4m" {
    reads {
      verb  = "list"
      kind  = "ClusterObjectSet"
      count = 10
    }
  }
}
