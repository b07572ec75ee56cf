// Package console serves aplite's web console: plain HTML, CSS and
// JavaScript modules embedded in the binary (nothing is fetched from the
// internet at run time), plus aplite.wasm, the query engine built for the
// browser, which answers queries over dropped files offline.
//
// The server mounts Handler at "/" and "/console/{filepath:*}". Every
// asset is served with its content type, a strong ETag (answering 304 to
// If-None-Match) and "Cache-Control: no-cache": browsers keep the bytes
// and revalidate them, so a new binary's console is picked up at once
// without users re-downloading an unchanged 3 MB engine. Assets are
// gzip-compressed once, at start-up (aplite.wasm is embedded compressed),
// and sent compressed to clients that accept gzip.
//
// Rebuild the committed aplite.wasm.gz with `make web`.
package console
