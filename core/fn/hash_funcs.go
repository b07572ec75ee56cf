package fn

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"encoding/hex"

	"github.com/cespare/xxhash/v2"

	"github.com/aplite/aplite/vector"
)

// Hash functions over a value's string form. hash is xxhash64, as in KQL;
// Axiom does not promise an algorithm, so only its determinism matters.

const famHash = "hash"

func init() {
	Register(&Func{Name: "hash", Family: famHash, MinArgs: 1, MaxArgs: 2,
		Result: Sig("hash", vector.Int, Of(vector.Bool, vector.Int, vector.String, vector.DateTime, vector.TimeSpan), KInt),
		Eval:   evalHash,
		Doc:    "hash(value[, salt]): a signed 64-bit xxhash64 of the value's string form; salt picks another hash domain."})
	digests := []struct {
		name string
		sum  func([]byte) string
	}{
		{"hash_md5", func(b []byte) string { s := md5.Sum(b); return hex.EncodeToString(s[:]) }},
		{"hash_sha1", func(b []byte) string { s := sha1.Sum(b); return hex.EncodeToString(s[:]) }},
		{"hash_sha256", func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }},
		{"hash_sha512", func(b []byte) string { s := sha512.Sum512(b); return hex.EncodeToString(s[:]) }},
	}
	for _, d := range digests {
		sum := d.sum
		Register(&Func{Name: d.name, Family: famHash, MinArgs: 1, MaxArgs: 1,
			Result: Sig(d.name, vector.String, KString),
			Eval:   strFunc(vector.String, func(s string) (string, bool) { return sum([]byte(s)), true }),
			Doc:    "Lower-case hex " + d.name[5:] + " digest of the value's string form."})
	}
}

func evalHash(_ *Context, args []*vector.Vector, n Rows) (*vector.Vector, error) {
	return strRows(vector.Int, args, 0, n, func(s string, i int) (int64, bool) {
		if len(args) < 2 {
			return int64(xxhash.Sum64String(s)), true
		}
		salt, ok := ToInt(args[1], i)
		if !ok {
			return 0, false
		}
		d := xxhash.New()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(salt))
		_, _ = d.Write(b[:])
		_, _ = d.WriteString(s)
		return int64(d.Sum64()), true
	}), nil
}
