# COD-52 COD-54 COD-07: readiness is a revision's Ready condition, no
# other: a revision that is not Ready but has another condition (Healthy)
# True is not ready. While web-1 waits for its namespace, with Healthy=True
# set by another writer, the deployment is Available=False/Unavailable;
# once web-1 is Ready and the next revision, web-2, waits in turn with
# Healthy=True, Available=True names web-1 alone.
scenario "a revision's other True condition is not readiness" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "8m"
  objects = ["other-condition-cod.yaml"]

  at "1m" {
    patch "ClusterObjectSet/web-1" {
      status = { conditions = [{ type = "Ready", status = "False", reason = "PreconditionsNotMet", message = "x", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" }, { type = "Healthy", status = "True", reason = "Probed", message = "probes pass", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:01:00Z" }] }
    }
  }
  expect "2m" {
    object = "ClusterObjectSet/web-1"
    state  = "PreconditionsNotMet"
    fields = { "status.conditions[Ready].status" = "False", "status.conditions[Healthy].status" = "True" }
  }
  expect "2m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionPreconditionsNotMet"
    fields = {
      "status.conditions[Available].status"  = "False"
      "status.conditions[Available].reason"  = "Unavailable"
      "status.conditions[Available].message" = "no owned active revision is ready: web-1"
    }
  }

  at "3m" {
    create = ["namespace-later.yaml"]
  }
  expect "4m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.conditions[Available].status" = "True", "status.conditions[Available].message" = "ready: web-1" }
  }

  # A new template whose namespace is missing: web-2 waits, web-1 stays
  # active and ready.
  at "5m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { spec = { phases = [{ name = "config", objects = [{ type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-b", namespace = "later2" }, data = { k = "b" } } }] }] } } } }
    }
  }
  at "6m" {
    patch "ClusterObjectSet/web-2" {
      status = { conditions = [{ type = "Ready", status = "False", reason = "PreconditionsNotMet", message = "x", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:05:00Z" }, { type = "Healthy", status = "True", reason = "Probed", message = "probes pass", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:06:00Z" }] }
    }
  }

  expect "7m" {
    object = "ClusterObjectSet/web-2"
    state  = "PreconditionsNotMet"
    fields = { "status.conditions[Ready].status" = "False", "status.conditions[Healthy].status" = "True" }
  }
  expect "7m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionPreconditionsNotMet"
    fields = {
      "status.conditions[Available].status"  = "True"
      "status.conditions[Available].reason"  = "Available"
      "status.conditions[Available].message" = "ready: web-1"
    }
  }
}
