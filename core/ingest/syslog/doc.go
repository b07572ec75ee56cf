// Package syslog reads syslog messages: RFC 5424 and the BSD format of
// RFC 3164, framed by octet counting or by newlines (RFC 6587), as a
// Heroku log drain posts them and as rsyslog, syslog-ng or logger send
// them over TCP or TLS (RFC 5425). Each message becomes one event of a
// store.RowsBuilder, with the field names Axiom's syslog proxy uses where
// it has one (hostname, application, severity, message) and RFC 5424's
// own names otherwise (facility, procid, msgid, structuredData).
//
// It is pure: no sockets, so it builds for js/wasm like the rest of core.
// The server's listener and its Heroku door (server/syslog.go,
// server/ingest_heroku.go) do the I/O.
//
// Senders are lenient and so is this reader, because a message refused
// here is lost (syslog has no way to tell the sender): a message without
// a PRI is user.notice (RFC 3164 section 4.3.3), a missing RFC 5424
// STRUCTURED-DATA (Heroku's logplex frames have none) means the message
// starts there, field lengths are not held to the RFC's maxima. What it
// refuses is what cannot be read as syslog at all: a PRI over 191, an
// unreadable timestamp or structured data that does not close. Such a
// message is one failure, never the rest of its batch.
package syslog
