package vector

//go:generate go run ./internal/gen
