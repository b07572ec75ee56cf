package check

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// update rewrites testdata/topology.json from the manifests.
var update = flag.Bool("update", false, "rewrite testdata/topology.json from the manifests")

// manifests is every object of deploy/k8s, decoded.
type manifests struct {
	services     []*corev1.Service
	secrets      []*corev1.Secret
	statefulSets []*appsv1.StatefulSet
	deployments  []*appsv1.Deployment
}

// load decodes every document of every .yaml file in dir strictly: a
// field the API does not have, or a value of the wrong type, fails with
// the file and the document's number.
func load(t *testing.T, dir string) *manifests {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in %s: %v", dir, err)
	}
	m := &manifests{}
	for _, f := range files {
		text, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, doc := range splitDocs(text) {
			if err := m.add(doc); err != nil {
				t.Errorf("%s, document %d: %v", filepath.Base(f), i+1, err)
			}
		}
	}
	return m
}

// splitDocs cuts a YAML stream at its "---" lines, dropping documents of
// comments alone.
func splitDocs(text []byte) [][]byte {
	var docs [][]byte
	for _, d := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(text), -1) {
		for _, line := range strings.Split(d, "\n") {
			if l := strings.TrimSpace(line); l != "" && !strings.HasPrefix(l, "#") {
				docs = append(docs, []byte(d))
				break
			}
		}
	}
	return docs
}

// add decodes one document by its apiVersion and kind.
func (m *manifests) add(doc []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return err
	}
	var obj any
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 Service":
		o := &corev1.Service{}
		m.services, obj = append(m.services, o), o
	case "v1 Secret":
		o := &corev1.Secret{}
		m.secrets, obj = append(m.secrets, o), o
	case "apps/v1 StatefulSet":
		o := &appsv1.StatefulSet{}
		m.statefulSets, obj = append(m.statefulSets, o), o
	case "apps/v1 Deployment":
		o := &appsv1.Deployment{}
		m.deployments, obj = append(m.deployments, o), o
	default:
		return fmt.Errorf("apiVersion %q kind %q: not one this check knows (Service, Secret, StatefulSet, Deployment)", tm.APIVersion, tm.Kind)
	}
	return yaml.UnmarshalStrict(doc, obj)
}

// workload is a StatefulSet's or a Deployment's pod template, named.
type workload struct {
	name     string
	selector *metav1.LabelSelector
	pod      corev1.PodTemplateSpec
}

func (m *manifests) workloads() []workload {
	var ws []workload
	for _, s := range m.statefulSets {
		ws = append(ws, workload{"StatefulSet " + s.Name, s.Spec.Selector, s.Spec.Template})
	}
	for _, d := range m.deployments {
		ws = append(ws, workload{"Deployment " + d.Name, d.Spec.Selector, d.Spec.Template})
	}
	return ws
}

// matches reports whether every label of sel is in labels.
func matches(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return len(sel) > 0
}

// The manifests decode strictly into the Kubernetes API types, and what
// one names another has: selectors select their pods, Services reach a
// port the pods declare, probes ask /health on it, the Secret holds every
// key the nodes read, and no $(VAR) in an argument is left unexpanded.
func TestManifestsAreValid(t *testing.T) {
	m := load(t, "..")
	if len(m.statefulSets) != 1 || len(m.deployments) != 1 || len(m.secrets) != 1 || len(m.services) < 2 {
		t.Fatalf("want one StatefulSet (ingest), one Deployment (query), one Secret and their Services; have %d, %d, %d, %d",
			len(m.statefulSets), len(m.deployments), len(m.secrets), len(m.services))
	}
	secret := m.secrets[0]
	for _, key := range []string{"APLITE_STORAGE", "APLITE_CLUSTER_SECRET", "APLITE_TOKEN", "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
		if _, ok := secret.StringData[key]; !ok {
			t.Errorf("Secret %s lacks %s", secret.Name, key)
		}
	}
	for _, w := range m.workloads() {
		if w.selector == nil || !matches(w.selector.MatchLabels, w.pod.Labels) {
			t.Errorf("%s: selector %v does not select its own pods %v", w.name, w.selector, w.pod.Labels)
		}
		if len(w.pod.Spec.Containers) != 1 {
			t.Fatalf("%s: %d containers, want aplite alone", w.name, len(w.pod.Spec.Containers))
		}
		checkContainer(t, w.name, w.pod.Spec.Containers[0], secret.Name)
	}
	for _, svc := range m.services {
		found := false
		for _, w := range m.workloads() {
			if !matches(svc.Spec.Selector, w.pod.Labels) {
				continue
			}
			found = true
			for _, p := range svc.Spec.Ports {
				if portOf(w.pod.Spec.Containers[0], p.TargetPort.String()) == 0 {
					t.Errorf("Service %s: targetPort %s is no port of %s", svc.Name, p.TargetPort.String(), w.name)
				}
			}
		}
		if !found {
			t.Errorf("Service %s: selector %v selects no workload", svc.Name, svc.Spec.Selector)
		}
	}
}

// checkContainer checks the probes, the Secret and the arguments of c.
func checkContainer(t *testing.T, name string, c corev1.Container, secret string) {
	t.Helper()
	for kind, p := range map[string]*corev1.Probe{"readiness": c.ReadinessProbe, "liveness": c.LivenessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/health" || portOf(c, p.HTTPGet.Port.String()) == 0 {
			t.Errorf("%s: %s probe %+v, want an HTTP GET of /health on a port the container declares", name, kind, p)
		}
	}
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != secret {
		t.Errorf("%s: envFrom %+v, want the Secret %s", name, c.EnvFrom, secret)
	}
	if len(c.Args) == 0 || c.Args[0] != "serve" {
		t.Errorf("%s: args %v do not start with serve", name, c.Args)
	}
	var defined []string
	for _, e := range c.Env {
		defined = append(defined, e.Name)
	}
	for _, a := range c.Args {
		for _, ref := range regexp.MustCompile(`\$\(([A-Za-z_][A-Za-z0-9_]*)\)`).FindAllStringSubmatch(a, -1) {
			if !slices.Contains(defined, ref[1]) {
				t.Errorf("%s: argument %q names $(%s), which the container does not define (Kubernetes would pass it as it is)", name, a, ref[1])
			}
		}
	}
}

// portOf returns the container port named or numbered p, 0 if none.
func portOf(c corev1.Container, p string) int32 {
	for _, cp := range c.Ports {
		if cp.Name == p || fmt.Sprint(cp.ContainerPort) == p {
			return cp.ContainerPort
		}
	}
	return 0
}

// flagValue returns the value of -name=value among args, and whether it
// is there.
func flagValue(args []string, name string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, "-"+name+"="); ok {
			return v, true
		}
	}
	return "", false
}

// The topology is the one aplite's cluster test runs: ingest nodes with
// their WAL (and their writer slot) on a claimed volume mounted where
// -data points; query nodes found by their heartbeats, with no -peers
// list, so the Deployment scales from 1, and asking the ingest node for
// its unflushed events (-ingest) by its pod's name under the headless
// Service only while there is one ingest node.
func TestManifestsTopology(t *testing.T) {
	m := load(t, "..")
	if len(m.statefulSets) != 1 || len(m.deployments) != 1 {
		t.Fatal("want one StatefulSet and one Deployment")
	}
	sts, dep := m.statefulSets[0], m.deployments[0]
	ingest, query := sts.Spec.Template.Spec.Containers[0], dep.Spec.Template.Spec.Containers[0]
	if sts.Spec.Replicas == nil || *sts.Spec.Replicas < 1 {
		t.Errorf("StatefulSet %s: replicas %v, want one or more", sts.Name, sts.Spec.Replicas)
	}
	if role, _ := flagValue(ingest.Args, "role"); role != "ingest" {
		t.Errorf("StatefulSet %s runs -role=%s, want ingest", sts.Name, role)
	}
	data, _ := flagValue(ingest.Args, "data")
	claimed := false
	for _, vm := range ingest.VolumeMounts {
		for _, pvc := range sts.Spec.VolumeClaimTemplates {
			claimed = claimed || vm.Name == pvc.Name && vm.MountPath == data
		}
	}
	if !claimed {
		t.Errorf("StatefulSet %s: -data=%s is not a volume claimed by the StatefulSet (the WAL must outlive the pod)", sts.Name, data)
	}
	headless := false
	for _, svc := range m.services {
		headless = headless || svc.Name == sts.Spec.ServiceName && svc.Spec.ClusterIP == corev1.ClusterIPNone
	}
	if !headless {
		t.Errorf("StatefulSet %s: serviceName %q is not a headless Service", sts.Name, sts.Spec.ServiceName)
	}
	if role, _ := flagValue(query.Args, "role"); role != "query" {
		t.Errorf("Deployment %s runs -role=%s, want query", dep.Name, role)
	}
	if _, ok := flagValue(query.Args, "peers"); ok {
		t.Errorf("Deployment %s lists -peers: query nodes find each other by -heartbeat", dep.Name)
	}
	for _, c := range []corev1.Container{ingest, query} {
		if hb, ok := flagValue(c.Args, "heartbeat"); !ok || hb == "0" || hb == "0s" {
			t.Errorf("%v: no -heartbeat: the node would not be found", c.Args)
		}
		if adv, _ := flagValue(c.Args, "advertise"); !strings.HasPrefix(adv, "$(POD_IP):") {
			t.Errorf("%v: -advertise=%s, want the pod's own address $(POD_IP):PORT", c.Args, adv)
		}
	}
	if ing, ok := flagValue(query.Args, "ingest"); ok {
		if *sts.Spec.Replicas > 1 {
			t.Errorf("Deployment %s: -ingest=%s names one of %d ingest nodes: answers would lack the others' unflushed events without saying so", dep.Name, ing, *sts.Spec.Replicas)
		}
		want := fmt.Sprintf("%s-0.%s:%d", sts.Name, sts.Spec.ServiceName, portOf(ingest, "http"))
		if ing != want {
			t.Errorf("Deployment %s: -ingest=%s, want the ingest pod %s", dep.Name, ing, want)
		}
	}
	checkTopologyFile(t, map[string]nodeArgs{"ingest": {Args: ingest.Args}, "query": {Args: query.Args}})
}

// nodeArgs is how one role is started, as cluster/k8s_test.go reads it.
type nodeArgs struct {
	Args []string `json:"args"`
}

// checkTopologyFile compares the roles' arguments with
// testdata/topology.json, which the loopback cluster test starts its
// nodes with, so that test runs what the manifests run.
func checkTopologyFile(t *testing.T, roles map[string]nodeArgs) {
	t.Helper()
	want, err := json.MarshalIndent(roles, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	want = append(want, '\n')
	path := filepath.Join("testdata", "topology.json")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("%s is not the manifests' arguments (go test -run Topology -update rewrites it): %v\nwant:\n%s", path, err, want)
	}
}
