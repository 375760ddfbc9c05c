# Applying the ClusterObjectDeployment fails twice (the server is
# unavailable): the extension reports Progressing=True/Retrying with the
# error and, with nothing installed, Installed=False/Failed; it tries again
# every retry_interval (10s), not sooner, and installs the bundle on the
# third attempt, at 20s.
scenario "applying the COD fails, then succeeds" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "2m"
  objects = ["cache-v1.yaml"]

  fault {
    verb     = "patch"
    kind     = "ClusterObjectDeployment"
    at_calls = [1, 2]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "5s" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.conditions[Progressing].status"  = "True"
      "status.conditions[Progressing].reason"  = "Retrying"
      "status.conditions[Progressing].message" = "applying ClusterObjectDeployment cache: etcdserver: request timed out"
      "status.conditions[Installed].status"    = "False"
      "status.conditions[Installed].reason"    = "Failed"
      "status.conditions[Installed].message"   = "No bundle installed"
    }
  }
  expect "5s" {
    object = "ClusterObjectDeployment/cache"
    absent = true
  }

  # Both sides of each retry: retry_interval (10s) after the failure.
  expect "9s" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 1
    }
  }
  expect "10s" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 2
    }
  }
  expect "19s" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 2
    }
  }
  expect "20s" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 3
    }
  }

  expect "30s" {
    object = "ClusterExtension/cache"
    state  = "Installed"
    reason = "Succeeded"
    fields = { "status.install.bundle.version" = "1.0.0", "status.conditions[Installed].status" = "True" }
  }
  expect "30s" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 3
    }
  }
}
