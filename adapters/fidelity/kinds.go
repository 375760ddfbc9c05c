package fidelity

import (
	"fmt"

	"github.com/statecraft/statecraft/jsonvalue"
)

// Kind is one kind the generator writes, with the bodies it draws from.
// Bodies are JSON text; strings of the form "$name:Kind/slot",
// "$uid:Kind/slot" and "$ns" are placeholders each side resolves (run.go).
type Kind struct {
	APIVersion string
	Kind       string
	Short      string // name prefix: ConfigMap slot "a" is named "cm-a"
	Cluster    bool   // cluster-scoped
	Status     bool   // the server serves a status subresource for it
	// Valid are objects the server accepts (without apiVersion, kind and
	// name, which the harness adds); Invalid are objects it refuses.
	Valid, Invalid []any
	// Merge are merge patches; read-modify-write updates apply them to
	// the object last read. JSON are JSON patches; Apply are applied
	// configurations (apiVersion, kind and name are added).
	Merge, JSON, Apply []any
	// StatusBodies are status contents ({"status": ...}) for status writes.
	StatusBodies []any
}

func js(texts ...string) []any {
	out := make([]any, len(texts))
	for i, t := range texts {
		v, err := jsonvalue.Decode([]byte(t))
		if err != nil {
			panic(fmt.Sprintf("fidelity: body %q: %v", t, err))
		}
		out[i] = v
	}
	return out
}

// Metadata changes every kind draws from, besides its own.
var (
	commonMerge = js(
		`{"metadata":{"labels":{"app":"web","tier":"a"}}}`,
		`{"metadata":{"labels":{"tier":null}}}`,
		`{"metadata":{"labels":{"tier":"b"}}}`,
		`{"metadata":{"annotations":{"note":"x"}}}`,
		`{"metadata":{"finalizers":["fidelity.statecraft.dev/hold"]}}`,
		`{"metadata":{"finalizers":null}}`,
		`{"metadata":{"labels":{"app":"not valid!"}}}`,
	)
	commonJSON = js(
		`[{"op":"add","path":"/metadata/labels","value":{"app":"web"}}]`,
		`[{"op":"add","path":"/metadata/labels/tier","value":"b"}]`,
		`[{"op":"remove","path":"/metadata/labels/tier"}]`,
		`[{"op":"test","path":"/metadata/labels/app","value":"web"},{"op":"replace","path":"/metadata/labels/app","value":"api"}]`,
		`[{"op":"add","path":"/metadata/finalizers","value":["fidelity.statecraft.dev/hold"]}]`,
		`[{"op":"remove","path":"/metadata/finalizers"}]`,
		`[{"op":"replace","path":"/metadata/name","value":"renamed"}]`,
	)
	commonApply = js(
		`{"metadata":{"labels":{"app":"web"}}}`,
		`{"metadata":{"labels":{"tier":"a"}}}`,
		`{"metadata":{"finalizers":["fidelity.statecraft.dev/hold"]}}`,
		`{"metadata":{"finalizers":["fidelity.statecraft.dev/other"]}}`,
		`{"metadata":{"annotations":{"note":"y"}}}`,
	)
)

// Selectors lists draw from ("" lists without one); the last is malformed.
var selectors = []string{"", "", "app=web", "tier in (a,b)", "!tier", "app", "app!=web,tier", "app=="}

// Finalizer is the finalizer the generator puts on objects it wants to
// outlive their deletion.
const Finalizer = "fidelity.statecraft.dev/hold"

const (
	podSpec  = `{"containers":[{"name":"app","image":"nginx:1.25"}]}`
	manifest = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"settings","namespace":"default"},"data":{"k":"v"}}`
	phases   = `[{"name":"deploy","objects":[{"inlineManifest":` + manifest + `}]}]`
	cond     = `{"type":"Ready","status":"True","reason":"Applied","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}`
)

// Kinds is the catalogue, in the order sequences take their primary kind.
var Kinds = []*Kind{
	{
		APIVersion: "v1", Kind: "ConfigMap", Short: "cm",
		Valid: js(
			`{"data":{"k1":"v1"}}`,
			`{"metadata":{"labels":{"app":"web"}},"data":{"k1":"v1","k2":"v2"}}`,
			`{"data":{"k1":"v1"},"binaryData":{"b":"aGVsbG8="}}`,
			`{"immutable":true,"data":{"k1":"v1"}}`,
			`{"metadata":{"labels":{"app":"web","tier":"a"}},"data":{},"unknownField":"x"}`,
		),
		Invalid: js(
			`{"data":{"bad key":"v"}}`,
			`{"data":{"k1":1}}`,
			`{"data":{"k1":"v"},"binaryData":{"k1":"aGVsbG8="}}`,
			`{"metadata":{"labels":{"app":"not valid!"}},"data":{}}`,
		),
		Merge: js(
			`{"data":{"k1":"v9"}}`,
			`{"data":{"k2":null}}`,
			`{"data":{"k3":"v3"}}`,
			`{"data":null}`,
			`{"immutable":true}`,
			`{"data":{"k1":2}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/data/k1","value":"v5"}]`,
			`[{"op":"add","path":"/data/k4","value":"v4"}]`,
			`[{"op":"remove","path":"/data/k2"}]`,
		),
		Apply: js(
			`{"data":{"k1":"applied"}}`,
			`{"data":{"k5":"m"}}`,
		),
	},
	{
		APIVersion: "v1", Kind: "Secret", Short: "sec",
		Valid: js(
			`{"type":"Opaque","data":{"k1":"djE="}}`,
			`{"stringData":{"k1":"plain"}}`,
			`{"type":"kubernetes.io/basic-auth","stringData":{"username":"u","password":"p"}}`,
			`{"immutable":true,"data":{"k1":"djE="}}`,
		),
		Invalid: js(
			`{"data":{"k1":"not base64!"}}`,
			`{"type":"kubernetes.io/tls","data":{"x":"eA=="}}`,
			`{"data":{"bad key":"eA=="}}`,
		),
		Merge: js(
			`{"data":{"k1":"djI="}}`,
			`{"stringData":{"k2":"two"}}`,
			`{"type":"Other"}`,
			`{"data":{"k1":null}}`,
		),
		JSON: js(
			`[{"op":"add","path":"/data/k3","value":"djM="}]`,
			`[{"op":"replace","path":"/type","value":"x"}]`,
		),
		Apply: js(
			`{"data":{"k1":"YXBwbGllZA=="}}`,
			`{"stringData":{"k9":"s"}}`,
		),
	},
	{
		APIVersion: "v1", Kind: "Namespace", Short: "ns", Cluster: true, Status: true,
		Valid: js(
			`{}`,
			`{"metadata":{"labels":{"team":"a"}}}`,
			`{"spec":{"finalizers":["kubernetes"]}}`,
		),
		Invalid: js(
			`{"metadata":{"labels":{"team":"-bad-"}}}`,
		),
		Merge: js(
			`{"metadata":{"labels":{"team":"b"}}}`,
			`{"spec":{"finalizers":[]}}`,
		),
		JSON: js(
			`[{"op":"add","path":"/metadata/labels/team","value":"c"}]`,
		),
		Apply: js(
			`{"metadata":{"labels":{"team":"applied"}}}`,
		),
		StatusBodies: js(
			`{"status":{"conditions":[{"type":"NamespaceDeletionDiscoveryFailure","status":"False","reason":"ResourcesDiscovered","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
			`{"status":{"phase":"Bogus"}}`,
		),
	},
	{
		APIVersion: "apps/v1", Kind: "Deployment", Short: "dep", Status: true,
		Valid: js(
			`{"metadata":{"labels":{"app":"web"}},"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":`+podSpec+`}}}`,
			`{"spec":{"replicas":2,"revisionHistoryLimit":3,"strategy":{"type":"Recreate"},"selector":{"matchLabels":{"app":"api"}},"template":{"metadata":{"labels":{"app":"api"}},"spec":{"containers":[{"name":"app","image":"nginx:1.25","ports":[{"containerPort":80}],"env":[{"name":"MODE","value":"x"}]},{"name":"sidecar","image":"busybox:1.36","resources":{"limits":{"cpu":"100m"}}}]}}}}`,
			`{"spec":{"paused":true,"minReadySeconds":5,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web","tier":"a"}},"spec":`+podSpec+`}}}`,
		),
		Invalid: js(
			`{"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"other"}},"spec":`+podSpec+`}}}`,
			`{"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[]}}}}`,
			`{"spec":{"replicas":-1,"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":`+podSpec+`}}}`,
			`{"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"app"}]}}}}`,
			`{"spec":{"strategy":{"type":"Bogus"},"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":`+podSpec+`}}}`,
		),
		Merge: js(
			`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}`,
			`{"spec":{"replicas":3}}`,
			`{"spec":{"replicas":null}}`,
			`{"spec":{"template":{"metadata":{"annotations":{"rollout":"1"}}}}}`,
			`{"spec":{"selector":{"matchLabels":{"app":"moved"}},"template":{"metadata":{"labels":{"app":"moved"}}}}}`,
			`{"spec":{"paused":true}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/replicas","value":4}]`,
			`[{"op":"add","path":"/spec/template/spec/containers/-","value":{"name":"extra","image":"busybox:1.36"}}]`,
			`[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.28"}]`,
			`[{"op":"remove","path":"/spec/template/spec/containers/0"}]`,
		),
		Apply: js(
			`{"spec":{"replicas":3}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.36"}]}}}}`,
			`{"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":`+podSpec+`}}}`,
		),
		StatusBodies: js(
			`{"status":{"replicas":1,"readyReplicas":1,"availableReplicas":1,"updatedReplicas":1,"observedGeneration":1,"conditions":[{"type":"Available","status":"True","reason":"MinimumReplicasAvailable","message":"ok","lastUpdateTime":"2026-01-01T00:00:00Z","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
			`{"status":{"replicas":-1}}`,
		),
	},
	{
		APIVersion: "batch/v1", Kind: "Job", Short: "job", Status: true,
		Valid: js(
			`{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"job","image":"busybox:1.36","command":["true"]}]}}}}`,
			`{"metadata":{"labels":{"app":"web"}},"spec":{"backoffLimit":2,"parallelism":2,"completions":4,"suspend":true,"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"job","image":"busybox:1.36"}]}}}}`,
			`{"spec":{"ttlSecondsAfterFinished":60,"activeDeadlineSeconds":600,"template":{"metadata":{"labels":{"tier":"a"}},"spec":{"restartPolicy":"Never","containers":[{"name":"job","image":"busybox:1.36"}]}}}}`,
		),
		Invalid: js(
			`{"spec":{"template":{"spec":{"restartPolicy":"Always","containers":[{"name":"job","image":"busybox:1.36"}]}}}}`,
			`{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[]}}}}`,
			`{"spec":{"parallelism":-1,"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"job","image":"busybox:1.36"}]}}}}`,
			`{"spec":{"completionMode":"Bogus","template":{"spec":{"restartPolicy":"Never","containers":[{"name":"job","image":"busybox:1.36"}]}}}}`,
		),
		Merge: js(
			`{"spec":{"suspend":true}}`,
			`{"spec":{"suspend":false}}`,
			`{"spec":{"parallelism":3}}`,
			`{"spec":{"activeDeadlineSeconds":300}}`,
			`{"spec":{"template":{"spec":{"containers":[{"name":"job","image":"busybox:1.37"}]}}}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/parallelism","value":2}]`,
			`[{"op":"add","path":"/spec/suspend","value":true}]`,
		),
		Apply: js(
			`{"spec":{"parallelism":2}}`,
			`{"spec":{"suspend":true}}`,
			`{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"job","image":"busybox:1.36","command":["true"]}]}}}}`,
		),
		StatusBodies: js(
			`{"status":{"active":1,"startTime":"2026-01-01T00:00:00Z"}}`,
			`{"status":{"active":-1}}`,
		),
	},
	{
		APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Short: "lease",
		Valid: js(
			`{"spec":{"holderIdentity":"a","leaseDurationSeconds":15}}`,
			`{"spec":{"holderIdentity":"b","leaseDurationSeconds":30,"acquireTime":"2026-01-01T00:00:00.000000Z","renewTime":"2026-01-01T00:00:05.000000Z","leaseTransitions":1}}`,
			`{"spec":{}}`,
		),
		Invalid: js(
			`{"spec":{"holderIdentity":"c","renewTime":"2026-01-01T00:00:05Z"}}`,
			`{"spec":{"leaseDurationSeconds":0}}`,
			`{"spec":{"leaseTransitions":-1}}`,
			`{"spec":{"renewTime":"yesterday"}}`,
		),
		Merge: js(
			`{"spec":{"holderIdentity":"z"}}`,
			`{"spec":{"renewTime":"2026-01-01T00:01:00.000000Z"}}`,
			`{"spec":{"leaseDurationSeconds":60}}`,
			`{"spec":{"holderIdentity":null}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/holderIdentity","value":"y"}]`,
		),
		Apply: js(
			`{"spec":{"holderIdentity":"m"}}`,
			`{"spec":{"leaseDurationSeconds":20}}`,
		),
	},
	{
		APIVersion: "events.k8s.io/v1", Kind: "Event", Short: "ev",
		Valid: js(
			`{"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"statecraft.dev/fidelity","reportingInstance":"fidelity-1","action":"Reconcile","reason":"Applied","type":"Normal","note":"hello","regarding":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a","namespace":"$ns"}}`,
			`{"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"statecraft.dev/fidelity","reportingInstance":"fidelity-1","action":"Patch","reason":"Failed","type":"Warning","note":"denied","regarding":{"apiVersion":"apps/v1","kind":"Deployment","name":"dep-a","namespace":"$ns"},"related":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-b","namespace":"$ns"}}`,
		),
		Invalid: js(
			`{"reportingController":"statecraft.dev/fidelity","reportingInstance":"fidelity-1","action":"Reconcile","reason":"Applied","type":"Normal"}`,
			`{"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"statecraft.dev/fidelity","reportingInstance":"fidelity-1","action":"Reconcile","reason":"Applied","type":"Info"}`,
			`{"eventTime":"2026-01-01T00:00:00.000000Z","reportingInstance":"fidelity-1","action":"Reconcile","reason":"Applied","type":"Normal"}`,
		),
		Merge: js(
			`{"note":"changed"}`,
			`{"series":{"count":2,"lastObservedTime":"2026-01-01T00:05:00.000000Z"}}`,
			`{"reason":"Other"}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/note","value":"replaced"}]`,
		),
		Apply: js(
			`{"note":"applied"}`,
		),
	},
	{
		APIVersion: "rightsizing.kubex.ai/v1alpha1", Kind: "ObjectPatch", Short: "op", Status: true,
		Valid: js(
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"},"patch":{"data":{"x":"y"}}}}`,
			`{"metadata":{"labels":{"app":"web"}},"spec":{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"dep-a"},"patch":{"metadata":{"labels":{"managed-by":"kubex"}}},"retryAmount":5,"requeueInterval":"10m","drift":{}}}`,
			`{"spec":{"targetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"dep-a"},"jsonPatch":[{"op":"replace","path":"/spec/template/spec/containers/@/image","selector":"item.name == 'app'","value":"nginx:1.27"}]}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"},"patch":{"data":{"x":"y"}},"extra":"pruned"}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-b"},"patch":{"data":{"x":"y"}}},"unknownTop":1}`,
		),
		Invalid: js(
			`{"spec":{"patch":{"data":{"x":"y"}}}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"}}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"},"patch":{"a":1},"requeueInterval":"0s"}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"},"patch":{"a":1},"requeueInterval":"5 minutes"}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"},"patch":{"a":1},"retryAmount":-1}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"},"jsonPatch":[{"op":"move","path":"/a/@","selector":"true"}]}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"},"patch":{"a":1},"drift":{"retryInterval":"48h"}}}`,
			`{"metadata":{"labels":{"app":"web"}}}`,
		),
		Merge: js(
			`{"spec":{"targetRef":{"name":"cm-b"}}}`,
			`{"spec":{"requeueInterval":"1m"}}`,
			`{"spec":{"retryAmount":null}}`,
			`{"spec":{"drift":{"retryAmount":1}}}`,
			`{"spec":{"patch":{"data":{"x":"z"}}}}`,
			`{"spec":{"requeueInterval":"-5m"}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/requeueInterval","value":"0s"}]`,
			`[{"op":"add","path":"/spec/drift","value":{"retryAmount":1}}]`,
			`[{"op":"remove","path":"/spec/patch"}]`,
		),
		Apply: js(
			`{"spec":{"requeueInterval":"2m"}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"cm-a"},"patch":{"data":{"x":"y"}}}}`,
			`{"spec":{"patch":{"data":{"z":"w"}}}}`,
		),
		StatusBodies: js(
			`{"status":{"state":"Applied","outcome":"Success","reason":"Applied","observedGeneration":1,"conditions":[`+cond+`]}}`,
			`{"status":{"state":"Pending","reason":"TargetNotFound","retryCount":1,"extra":"kept"}}`,
			`{"status":{"conditions":[{"type":"Ready","status":"Maybe","reason":"Applied","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
			`{"status":{"conditions":[{"type":"Ready","status":"True"}]}}`,
			`{"status":{"retryCount":-1}}`,
		),
	},
	{
		APIVersion: "rightsizing.kubex.ai/v1alpha1", Kind: "ClusterObjectPatch", Short: "cop", Cluster: true, Status: true,
		Valid: js(
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"Namespace","name":"default"},"patch":{"metadata":{"labels":{"managed-by":"kubex"}}}}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"Namespace","name":"default"},"patch":{"metadata":{"labels":{"x":"y"}}},"drift":{"retryInterval":"1h"}}}`,
		),
		Invalid: js(
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"Namespace"},"patch":{"a":1}}}`,
			`{"spec":{"targetRef":{"apiVersion":"v1","kind":"Namespace","name":"default"},"patch":{"a":1},"drift":{"retryInterval":"0s"}}}`,
		),
		Merge: js(
			`{"spec":{"targetRef":{"name":"kube-system"}}}`,
			`{"spec":{"drift":{"stabilizationWindow":"30m"}}}`,
			`{"spec":{"requeueInterval":"30s"}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/targetRef/kind","value":"Node"}]`,
		),
		Apply: js(
			`{"spec":{"requeueInterval":"3m"}}`,
		),
		StatusBodies: js(
			`{"status":{"state":"Applied","outcome":"Success","reason":"Applied","conditions":[`+cond+`]}}`,
			`{"status":{"conditions":[{"type":"Ready","status":"True","reason":"not a reason","message":"m","lastTransitionTime":"2026-01-01T00:00:00Z"}]}}`,
		),
	},
	{
		APIVersion: "ichor.maesh.dev/v1alpha1", Kind: "IchorInstallation", Short: "ichor", Status: true,
		Valid: js(
			`{"spec":{"version":"1.2.0"}}`,
			`{"spec":{"version":"1.2.0","autoPatch":{"enabled":true,"components":["talos","kubernetes"],"window":"22:00-02:00"}}}`,
			`{"spec":{"autoPatch":{"window":""}}}`,
		),
		Invalid: js(
			`{"spec":{"autoPatch":{"window":"25:00-26:00"}}}`,
			`{"spec":{"autoPatch":{"window":"02:00-02:00"}}}`,
			`{"spec":{"autoPatch":{"components":["foo"]}}}`,
			`{"spec":{"autoPatch":{"components":["talos","talos"]}}}`,
			`{"metadata":{"labels":{"app":"web"}}}`,
		),
		Merge: js(
			`{"spec":{"autoPatch":{"enabled":false}}}`,
			`{"spec":{"autoPatch":{"window":"01:00-01:00"}}}`,
			`{"spec":{"autoPatch":{"components":["cilium"]}}}`,
			`{"spec":{"version":"1.3.0"}}`,
		),
		JSON: js(
			`[{"op":"add","path":"/spec/autoPatch","value":{"acknowledgedHalt":"ns/op"}}]`,
		),
		Apply: js(
			`{"spec":{"autoPatch":{"components":["talos"]}}}`,
			`{"spec":{"autoPatch":{"components":["kubernetes"]}}}`,
			`{"spec":{"version":"2.0.0"}}`,
		),
		StatusBodies: js(
			`{"status":{"installedVersion":"1.2.0","effective":{"autoPatch":true,"autoPatchComponents":["talos"]},"conditions":[{"type":"AutoPatchHalted","status":"False"}]}}`,
			`{"status":{"conditions":[{"type":"AutoPatchHalted"}]}}`,
			`{"status":{"autoPatch":{"pending":{"anything":{"goes":1}}},"unknown":"pruned"}}`,
		),
	},
	{
		APIVersion: "ichor.maesh.dev/v1alpha1", Kind: "TalosCluster", Short: "tc", Status: true,
		Valid: js(
			`{"spec":{"talosVersion":"v1.9.0","kubernetesVersion":"v1.32.0"}}`,
			`{"spec":{"talosVersion":"v1.9.0","kubernetesVersion":"v1.32.0","cni":{"preset":"cilium","chartVersion":"1.16.0"}}}`,
		),
		Invalid: js(
			`{"spec":{"talosVersion":"v1.9.0"}}`,
			`{"spec":{"talosVersion":"v1.9.0","kubernetesVersion":"v1.32.0","cni":{"preset":"calico"}}}`,
		),
		Merge: js(
			`{"spec":{"talosVersion":"v1.9.1"}}`,
			`{"spec":{"kubernetesVersion":null}}`,
			`{"spec":{"cni":{"preset":"none"}}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/talosVersion","value":"v1.9.2"}]`,
		),
		Apply: js(
			`{"spec":{"talosVersion":"v1.9.3"}}`,
			`{"spec":{"talosVersion":"v1.9.0","kubernetesVersion":"v1.32.0"}}`,
		),
		StatusBodies: js(
			`{"status":{"ciliumVersion":"1.16.0","machines":[{"name":"m1","approved":true,"ready":true,"annotations":{"ichor.maesh.dev/hold":"true"}}]}}`,
			`{"status":{"machines":[{"approved":true}]}}`,
		),
	},
	{
		APIVersion: "ichor.maesh.dev/v1alpha1", Kind: "TalosOperation", Short: "top", Status: true,
		Valid: js(
			`{"spec":{"cluster":"tc-a","type":"talos","targetVersion":"v1.9.1"}}`,
			`{"metadata":{"annotations":{"ichor.maesh.dev/started-by":"ichor-auto-patch"}},"spec":{"cluster":"tc-a","type":"kubernetes"}}`,
		),
		Invalid: js(
			`{"spec":{"cluster":"tc-a","type":"upgrade"}}`,
			`{"spec":{"type":"talos"}}`,
		),
		Merge: js(
			`{"spec":{"targetVersion":"v1.9.2"}}`,
			`{"spec":{"type":"reboot"}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/type","value":"bogus"}]`,
		),
		Apply: js(
			`{"spec":{"targetVersion":"v1.9.4"}}`,
		),
		StatusBodies: js(
			`{"status":{"phase":"Running","startTime":"2026-01-01T00:00:00Z","conditions":[{"type":"Progressing","anything":"kept"}]}}`,
			`{"status":{"phase":"Done"}}`,
		),
	},
	{
		APIVersion: "olm.operatorframework.io/v1", Kind: "ClusterExtension", Short: "ce", Cluster: true, Status: true,
		Valid: js(
			`{"spec":{"bundle":{"name":"argocd","version":"1.0.0","phases":`+phases+`}}}`,
			`{"spec":{"namespace":"argocd","serviceAccount":{"name":"installer"},"source":{"sourceType":"Catalog","catalog":{"packageName":"argocd"}},"bundle":{"name":"argocd","version":"1.0.0","image":"quay.io/x:1","phases":`+phases+`}}}`,
		),
		Invalid: js(
			`{"spec":{"bundle":{"name":"argocd","version":"1.0.0","phases":[{"name":"deploy","objects":[{}]}]}}}`,
			`{"spec":{"bundle":{"name":"argocd","version":"1.0.0","phases":[{"name":"Deploy","objects":[{"inlineManifest":`+manifest+`}]}]}}}`,
			`{"spec":{"bundle":{"name":"argocd","version":"1.0.0","phases":[]}}}`,
			`{"spec":{"bundle":{"name":"argocd","version":"1.0.0","phases":[{"name":"deploy","objects":[{"inlineManifest":{"metadata":{"name":"x"}}}]}]}}}`,
		),
		Merge: js(
			`{"spec":{"bundle":{"version":"1.1.0"}}}`,
			`{"spec":{"namespace":"Bad_NS"}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/bundle/version","value":"1.2.0"}]`,
		),
		Apply: js(
			`{"spec":{"bundle":{"name":"argocd","version":"2.0.0","phases":` + phases + `}}}`,
		),
		StatusBodies: js(
			`{"status":{"install":{"bundle":{"name":"argocd","version":"1.0.0"}},"conditions":[{"type":"Installed","status":"True","reason":"Succeeded"}]}}`,
			`{"status":{"install":{"bundle":{"name":"argocd"}}}}`,
		),
	},
	{
		APIVersion: "olm.operatorframework.io/v1", Kind: "ClusterObjectDeployment", Short: "cod", Cluster: true, Status: true,
		Valid: js(
			`{"spec":{"template":{"spec":{"phases":`+phases+`}}}}`,
			`{"spec":{"progressDeadlineMinutes":10,"revisionHistoryLimit":2,"template":{"metadata":{"labels":{"app":"web"}},"spec":{"collisionProtection":"Prevent","phases":`+phases+`}}}}`,
		),
		Invalid: js(
			`{"spec":{"progressDeadlineMinutes":0,"template":{"spec":{"phases":`+phases+`}}}}`,
			`{"spec":{"revisionHistoryLimit":51,"template":{"spec":{"phases":`+phases+`}}}}`,
			`{"spec":{"template":{"spec":{"phases":[]}}}}`,
			`{"spec":{"template":{"spec":{"collisionProtection":"Sometimes","phases":`+phases+`}}}}`,
		),
		Merge: js(
			`{"spec":{"progressDeadlineMinutes":20}}`,
			`{"spec":{"revisionHistoryLimit":null}}`,
			`{"spec":{"progressDeadlineMinutes":721}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/revisionHistoryLimit","value":7}]`,
		),
		Apply: js(
			`{"spec":{"progressDeadlineMinutes":30}}`,
			`{"spec":{"template":{"spec":{"phases":`+phases+`}}}}`,
		),
		StatusBodies: js(
			`{"status":{"latestRevision":1,"templateHash":"abc","conditions":[{"type":"Available","status":"True","reason":"Available"}]}}`,
			`{"status":{"latestRevision":"one"}}`,
		),
	},
	{
		APIVersion: "olm.operatorframework.io/v1", Kind: "ClusterObjectSet", Short: "cos", Cluster: true, Status: true,
		Valid: js(
			`{"spec":{"group":"my-app","revision":1,"lifecycleState":"Active","phases":`+phases+`}}`,
			`{"metadata":{"labels":{"olm.operatorframework.io/template-hash":"abc"}},"spec":{"group":"my-app","revision":2,"lifecycleState":"Active","collisionProtection":"IfNoController","phases":`+phases+`}}`,
		),
		Invalid: js(
			`{"spec":{"group":"my-app","revision":1,"lifecycleState":"Gone","phases":`+phases+`}}`,
			`{"spec":{"group":"My_App","revision":1,"lifecycleState":"Active","phases":`+phases+`}}`,
			`{"spec":{"group":"my-app","revision":0,"lifecycleState":"Active","phases":`+phases+`}}`,
			`{"spec":{"group":"my-app","lifecycleState":"Active","phases":`+phases+`}}`,
		),
		Merge: js(
			`{"spec":{"lifecycleState":"Archived"}}`,
			`{"spec":{"lifecycleState":"Active"}}`,
			`{"spec":{"revision":5}}`,
			`{"spec":{"phases":[{"name":"other","objects":[{"inlineManifest":`+manifest+`}]}]}}`,
		),
		JSON: js(
			`[{"op":"replace","path":"/spec/lifecycleState","value":"Archived"}]`,
		),
		Apply: js(
			`{"spec":{"lifecycleState":"Archived"}}`,
			`{"spec":{"group":"my-app","revision":1,"lifecycleState":"Active","phases":`+phases+`}}`,
		),
		StatusBodies: js(
			`{"status":{"completedAt":"2026-01-01T00:00:00Z","activePhase":"deploy","conditions":[{"type":"Ready","status":"True","reason":"Ready"}]}}`,
			`{"status":{"completedAt":"not a time"}}`,
		),
	},
}

// kindByName finds a catalogue entry by its Kind.
func kindByName(name string) *Kind {
	for _, k := range Kinds {
		if k.Kind == name {
			return k
		}
	}
	return nil
}
