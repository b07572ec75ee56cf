// Package objstore connects aplite's storage engine to object storage:
// an S3 client (any S3-compatible service: AWS S3, R2, GCS
// interoperability, SeaweedFS, MinIO, Ceph) and the two cache layers a
// node reads blocks through, byte ranges in memory (fastcache) and byte
// ranges on local disk (LRU, bounded). Each implements the core's
// store.ObjectStore, so the core never imports the network.
//
// The bucket layout and the catalog are specified in
// core/store/OBJECTS.md.
package objstore
