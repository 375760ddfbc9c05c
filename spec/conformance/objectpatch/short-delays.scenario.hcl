# retry_delay, retry_delay_cap and drift_backoff_cap at their lower limit:
# any positive duration is valid, one second included (zero is refused when
# the rule file is loaded). The first patch attempt fails; with retry_delay
# 1s the retry, one second later, applies the patch.
scenario "one-second retry delays are accepted" {
  rules   = ["objectpatch"]
  run_for = "1m"
  objects = ["namespace.yaml", "deployment.yaml", "report-only-patch.yaml"]

  rule "objectpatch" {
    params = { retry_delay = "1s", retry_delay_cap = "1s", drift_backoff_cap = "1s" }
  }

  fault {
    verb     = "patch"
    kind     = "Deployment"
    at_calls = [1]
    outcome  = "transient"
  }

  expect "0s" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Pending"
    reason = "Retrying"
    fields = { "status.retryCount" = 1 }
  }
  expect "1s" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    reason = "Applied"
  }
}
