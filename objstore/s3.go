package objstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aplite/aplite/core/store"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3 is a bucket (and a key prefix in it) on an S3-compatible service.
//
// The client is minio-go v7: one module with few dependencies, path-style
// addressing for self-hosted stores, ranged GETs, conditional PUTs, and
// retries with jittered backoff that honour the context. (aws-sdk-go-v2
// needs a dozen modules for the same calls and grows the binary by about
// twice as much.)
type S3 struct {
	c       *minio.Client
	bucket  string
	prefix  string // "" or ends with "/"
	timeout time.Duration
	stats   *Stats
}

// S3Config says where the bucket is. Zero fields come from the standard
// AWS environment (FromEnv).
type S3Config struct {
	Endpoint  string // URL, e.g. http://127.0.0.1:8333; empty: AWS
	Region    string
	AccessKey string
	SecretKey string
	Bucket    string
	Prefix    string
	// PathStyle addresses the bucket as endpoint/bucket/key instead of
	// bucket.endpoint/key; self-hosted stores need it. It defaults to on
	// for any endpoint that is not amazonaws.com.
	PathStyle *bool
	// Timeout bounds each request including its retries (default 30 s).
	Timeout time.Duration
}

// ParseURL reads "s3://BUCKET/PREFIX" into a config completed from the
// environment: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL, AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_REGION (or AWS_DEFAULT_REGION), and
// AWS_S3_FORCE_PATH_STYLE / APLITE_S3_PATH_STYLE ("true"/"false").
func ParseURL(raw string) (S3Config, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "s3" || u.Host == "" {
		return S3Config{}, fmt.Errorf("storage %q: want s3://BUCKET[/PREFIX]", raw)
	}
	cfg := S3Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/")}
	cfg.Endpoint = firstEnv("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	cfg.Region = firstEnv("AWS_REGION", "AWS_DEFAULT_REGION")
	cfg.AccessKey = os.Getenv("AWS_ACCESS_KEY_ID")
	cfg.SecretKey = os.Getenv("AWS_SECRET_ACCESS_KEY")
	if v := firstEnv("APLITE_S3_PATH_STYLE", "AWS_S3_FORCE_PATH_STYLE"); v != "" {
		b := v == "true" || v == "1"
		cfg.PathStyle = &b
	}
	return cfg, nil
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := os.Getenv(n); v != "" {
			return v
		}
	}
	return ""
}

// NewS3 connects to the bucket; it checks that the bucket exists, so a
// wrong name or endpoint fails at start-up, not at the first flush.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	host, secure := "s3.amazonaws.com", true
	if cfg.Endpoint != "" {
		u, err := url.Parse(cfg.Endpoint)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("s3 endpoint %q: want a URL such as http://127.0.0.1:8333", cfg.Endpoint)
		}
		host, secure = u.Host, u.Scheme == "https"
	}
	pathStyle := !strings.HasSuffix(host, "amazonaws.com")
	if cfg.PathStyle != nil {
		pathStyle = *cfg.PathStyle
	}
	lookup := minio.BucketLookupDNS
	if pathStyle {
		lookup = minio.BucketLookupPath
	}
	creds := credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, "")
	if cfg.AccessKey == "" {
		creds = credentials.NewChainCredentials([]credentials.Provider{&credentials.EnvAWS{}, &credentials.IAM{}})
	}
	c, err := minio.New(host, &minio.Options{Creds: creds, Secure: secure, Region: cfg.Region,
		BucketLookup: lookup, Transport: transport(), MaxRetries: 4})
	if err != nil {
		return nil, fmt.Errorf("s3: %w", err)
	}
	s := &S3{c: c, bucket: cfg.Bucket, prefix: cfg.Prefix, timeout: cfg.Timeout, stats: &Stats{}}
	if s.prefix != "" && !strings.HasSuffix(s.prefix, "/") {
		s.prefix += "/"
	}
	if s.timeout <= 0 {
		s.timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	ok, err := c.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("s3: bucket %s at %s: %w", cfg.Bucket, host, err)
	}
	if !ok {
		return nil, fmt.Errorf("s3: bucket %s does not exist at %s", cfg.Bucket, host)
	}
	return s, nil
}

// transport bounds each phase of a request, so a stalled store turns into
// an error the caller retries instead of a hang.
func transport() http.RoundTripper {
	return &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: 15 * time.Second,
		ExpectContinueTimeout: time.Second,
		// Blocks and large catalog versions are compressed already: a
		// whole-object read (Go asks for gzip on any request without a
		// Range) must not make the store gzip them again. minio-go's own
		// transport does the same.
		DisableCompression: true,
	}
}

// Stats returns the request counters.
func (s *S3) Stats() *Stats { return s.stats }

func (s *S3) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout)
}

// Put implements store.ObjectStore.
func (s *S3) Put(ctx context.Context, key string, data []byte) error {
	return s.put(ctx, key, data, minio.PutObjectOptions{})
}

// PutIfAbsent implements store.ObjectStore with If-None-Match: *.
func (s *S3) PutIfAbsent(ctx context.Context, key string, data []byte) error {
	opts := minio.PutObjectOptions{}
	opts.SetMatchETagExcept("*")
	return s.put(ctx, key, data, opts)
}

// Swap implements store.SwapStore: If-Match the tag (an ETag), or
// If-None-Match: * when tag is "".
func (s *S3) Swap(ctx context.Context, key string, data []byte, tag string) (string, error) {
	opts := minio.PutObjectOptions{}
	if tag == "" {
		opts.SetMatchETagExcept("*")
	} else {
		opts.SetMatchETag(tag)
	}
	info, err := s.putInfo(ctx, key, data, opts)
	if err != nil {
		if errors.Is(err, store.ErrObjectExists) || errors.Is(err, store.ErrObjectNotFound) ||
			minio.ToErrorResponse(errors.Unwrap(err)).Code == "ConditionalRequestConflict" {
			return "", fmt.Errorf("%w: %s", store.ErrObjectChanged, key)
		}
		return "", err
	}
	return info.ETag, nil
}

// GetTag implements store.SwapStore: one GET, the tag is its ETag.
func (s *S3) GetTag(ctx context.Context, key string) ([]byte, string, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	s.stats.Gets.Add(1)
	obj, err := s.c.GetObject(ctx, s.bucket, s.prefix+key, minio.GetObjectOptions{})
	if err != nil {
		return nil, "", s.err(key, err)
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		return nil, "", s.err(key, err)
	}
	st, err := obj.Stat()
	if err != nil {
		return nil, "", s.err(key, err)
	}
	return b, st.ETag, nil
}

func (s *S3) put(ctx context.Context, key string, data []byte, opts minio.PutObjectOptions) error {
	_, err := s.putInfo(ctx, key, data, opts)
	return err
}

func (s *S3) putInfo(ctx context.Context, key string, data []byte, opts minio.PutObjectOptions) (minio.UploadInfo, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	opts.ContentType = "application/octet-stream"
	opts.DisableMultipart = len(data) < 64<<20
	// The body is not hashed into the signature (UNSIGNED-PAYLOAD, as
	// minio-go already does over TLS): a streaming SigV4 signature costs
	// a SHA-256 pass over every block on this node and another on the
	// store's. Integrity rides on the CRC32C trailer minio-go sends
	// instead, and every block carries its own checksums besides.
	opts.DisableContentSha256 = true
	s.stats.Puts.Add(1)
	s.stats.PutBytes.Add(int64(len(data)))
	info, err := s.c.PutObject(ctx, s.bucket, s.prefix+key, bytes.NewReader(data), int64(len(data)), opts)
	return info, s.err(key, err)
}

// Get implements store.ObjectStore.
func (s *S3) Get(ctx context.Context, key string) ([]byte, error) {
	return s.get(ctx, key, minio.GetObjectOptions{})
}

// GetRange implements store.ObjectStore with one ranged GET.
func (s *S3) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	opts := minio.GetObjectOptions{}
	if n < 0 {
		if err := opts.SetRange(off, 0); err != nil {
			return nil, err
		}
	} else if n == 0 {
		return []byte{}, nil
	} else if err := opts.SetRange(off, off+n-1); err != nil {
		return nil, err
	}
	b, err := s.get(ctx, key, opts)
	if err == nil && n >= 0 && int64(len(b)) != n {
		return nil, fmt.Errorf("s3: %s: asked %d bytes at %d, got %d", key, n, off, len(b))
	}
	return b, err
}

func (s *S3) get(ctx context.Context, key string, opts minio.GetObjectOptions) ([]byte, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	s.stats.Gets.Add(1)
	obj, err := s.c.GetObject(ctx, s.bucket, s.prefix+key, opts)
	if err != nil {
		return nil, s.err(key, err)
	}
	defer obj.Close()
	b, err := io.ReadAll(obj)
	if err != nil {
		return nil, s.err(key, err)
	}
	s.stats.GetBytes.Add(int64(len(b)))
	return b, nil
}

// Delete implements store.ObjectStore.
func (s *S3) Delete(ctx context.Context, key string) error {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	return s.err(key, s.c.RemoveObject(ctx, s.bucket, s.prefix+key, minio.RemoveObjectOptions{}))
}

// List implements store.ObjectStore.
func (s *S3) List(ctx context.Context, prefix, delim string) (store.ListResult, error) {
	ctx, cancel := s.ctx(ctx)
	defer cancel()
	s.stats.Lists.Add(1)
	var res store.ListResult
	for o := range s.c.ListObjects(ctx, s.bucket, minio.ListObjectsOptions{Prefix: s.prefix + prefix, Recursive: delim == ""}) {
		if o.Err != nil {
			return store.ListResult{}, s.err(prefix, o.Err)
		}
		key := strings.TrimPrefix(o.Key, s.prefix)
		if delim != "" && strings.HasSuffix(key, delim) {
			res.Prefixes = append(res.Prefixes, key)
			continue
		}
		res.Objects = append(res.Objects, store.ObjectInfo{Key: key, Size: o.Size, Modified: o.LastModified})
	}
	return res, nil
}

// err maps the service's answers to the store's errors.
func (s *S3) err(key string, err error) error {
	if err == nil {
		return nil
	}
	switch minio.ToErrorResponse(err).Code {
	case minio.NoSuchKey:
		return fmt.Errorf("%w: %s", store.ErrObjectNotFound, key)
	case minio.PreconditionFailed:
		return fmt.Errorf("%w: %s", store.ErrObjectExists, key)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("s3: %s: no answer within %s: %w", key, s.timeout, err)
	}
	return fmt.Errorf("s3: %s: %w", key, err)
}
