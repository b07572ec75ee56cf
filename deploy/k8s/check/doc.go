// Package check validates the Kubernetes manifests in deploy/k8s: each
// document decodes strictly (no field Kubernetes does not know) into the
// API types of k8s.io/api, and the manifests hang together (selectors,
// probes, the Secret's keys, the flags each role is started with). It is
// a module of its own so that k8s.io/api stays out of aplite's go.mod;
// `make k8s-check` runs it, and `make test` and `make deploy-check`
// depend on that target.
package check
