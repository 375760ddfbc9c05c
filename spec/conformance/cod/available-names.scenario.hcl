# COD-54: Available=False/Unavailable names the owned active revisions, none
# of them ready, and follows them when only that list changes: web-1 and
# web-2 both roll out (their Deployment never becomes available); once web-1
# is deleted the condition names web-2 alone, while Progressing, about
# web-2, stays as it was. (The deletion does not wake the COD on the
# simulator; it notices at its next poll, 10 minutes after its last step at
# 3m.)
scenario "available: the unready revisions it names" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "15m"
  objects = ["available-names-cod.yaml"]

  at "2m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { metadata = { labels = { v = "2" } } } } }
    }
  }
  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = {
      "status.latestRevision"                  = 2
      "status.conditions[Progressing].message" = "ClusterObjectSet web-2 is rolling out; see its Ready condition"
      "status.conditions[Available].reason"    = "Unavailable"
      "status.conditions[Available].message"   = "no owned active revision is ready: web-1, web-2"
    }
  }

  at "5m" {
    delete = ["ClusterObjectSet/web-1"]
  }
  expect "13m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = {
      "status.latestRevision"                  = 2
      "status.conditions[Progressing].message" = "ClusterObjectSet web-2 is rolling out; see its Ready condition"
      "status.conditions[Available].status"    = "False"
      "status.conditions[Available].reason"    = "Unavailable"
      "status.conditions[Available].message"   = "no owned active revision is ready: web-2"
    }
  }
}
