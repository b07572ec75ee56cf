package meta

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"strings"
	"time"
)

// Token secret prefixes. axiom-go refuses any other prefix client-side.
const (
	PrefixAPI      = "xaat-"
	PrefixPersonal = "xapt-"
)

// NewSecret returns a fresh token secret with the given prefix.
func NewSecret(prefix string) string {
	var b [20]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// HashSecret is how a secret is stored and looked up: hex SHA-256.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// ValidSecret reports whether s looks like a token aplite could have
// issued, so malformed tokens are refused before any lookup.
func ValidSecret(s string) bool {
	if !strings.HasPrefix(s, PrefixAPI) && !strings.HasPrefix(s, PrefixPersonal) {
		return false
	}
	if len(s) < 10 || len(s) > 200 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f {
			return false
		}
	}
	return true
}

// TokenBySecret finds the token whose secret is secret. It returns
// ErrNotFound for unknown secrets; expiry is the caller's business.
func (s *Store) TokenBySecret(secret string) (*TokenRecord, error) {
	h := HashSecret(secret)
	var rec TokenRecord
	err := s.View(func(tx *Tx) error {
		raw := tx.bucket(KindTokenHash).Get(key("", h))
		if raw == nil {
			return ErrNotFound
		}
		return tx.Get(KindToken, "", string(raw), &rec)
	})
	if err != nil {
		return nil, err
	}
	// The lookup was by hash; compare again in constant time so the
	// decision itself never depends on how much of the secret matched.
	if subtle.ConstantTimeCompare([]byte(rec.Hash), []byte(h)) != 1 {
		return nil, ErrNotFound
	}
	return &rec, nil
}

// PutToken stores rec, indexing it by the hash of secret.
func (t *Tx) PutToken(rec *TokenRecord, secret string) error {
	rec.Hash = HashSecret(secret)
	if err := t.bucket(KindTokenHash).Put(key("", rec.Hash), []byte(rec.ID)); err != nil {
		return err
	}
	return t.Put(KindToken, "", rec.ID, rec)
}

// DeleteToken removes a token and its hash index.
func (t *Tx) DeleteToken(id string) error {
	var rec TokenRecord
	if err := t.Get(KindToken, "", id, &rec); err != nil {
		return err
	}
	if err := t.bucket(KindTokenHash).Delete(key("", rec.Hash)); err != nil {
		return err
	}
	return t.Delete(KindToken, "", id)
}

// Expired reports whether the token is past its expiry (zero = never).
func (r *TokenRecord) Expired(now time.Time) bool {
	return !r.ExpiresAt.IsZero() && !now.Before(r.ExpiresAt)
}
