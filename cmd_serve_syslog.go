package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"

	"github.com/aplite/aplite/server"
)

// syslogFlags are serve's flags for the syslog listener (server/syslog.go
// says what it stores and what a crash can lose).
type syslogFlags struct {
	addr, udp, dataset, org, cert, key string
	ln, udpLn                          *server.SyslogListener
}

func (f *syslogFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "syslog", envOr("APLITE_SYSLOG", ""), "host:port to take syslog on over TCP (RFC 5424 and 3164, octet-counted or newline framed; TLS with -syslog-cert): each message becomes an event of -syslog-dataset; anyone who can reach it can write there, so bind it where only your senders can (APLITE_SYSLOG)")
	fs.StringVar(&f.udp, "syslog-udp", envOr("APLITE_SYSLOG_UDP", ""), "host:port to take syslog on over UDP (RFC 5426, one message per datagram) into the same dataset; UDP has no flow control, so what arrives faster than it is stored, or over the ingest limit, is dropped by the kernel (APLITE_SYSLOG_UDP)")
	fs.StringVar(&f.dataset, "syslog-dataset", envOr("APLITE_SYSLOG_DATASET", "syslog"), "dataset the syslog listener stores into, created when missing (APLITE_SYSLOG_DATASET)")
	fs.StringVar(&f.org, "syslog-org", envOr("APLITE_SYSLOG_ORG", ""), "org whose dataset, ingest limit and field cap the syslog listener uses (default -org) (APLITE_SYSLOG_ORG)")
	fs.StringVar(&f.cert, "syslog-cert", envOr("APLITE_SYSLOG_CERT", ""), "PEM certificate (chain) of the syslog listener: with -syslog-key it takes only TLS (RFC 5425) (APLITE_SYSLOG_CERT)")
	fs.StringVar(&f.key, "syslog-key", envOr("APLITE_SYSLOG_KEY", ""), "PEM private key for -syslog-cert (APLITE_SYSLOG_KEY)")
}

// start starts the listeners -syslog and -syslog-udp ask for.
func (f *syslogFlags) start(srv *server.Server, lg *slog.Logger) (err error) {
	defer func() {
		if err != nil {
			f.stop()
		}
	}()
	cfg := server.SyslogConfig{Dataset: f.dataset, Org: f.org}
	if f.udp != "" {
		ln, err := srv.ListenSyslogUDP(f.udp, cfg)
		if err != nil {
			return err
		}
		f.udpLn = ln
		lg.Info("syslog listening on udp "+ln.Addr().String(), "addr", ln.Addr().String(), "protocol", "udp", "dataset", f.dataset)
	}
	if f.addr == "" {
		if f.cert != "" || f.key != "" {
			return errors.New("-syslog-cert and -syslog-key need -syslog ADDR")
		}
		return nil
	}
	if (f.cert == "") != (f.key == "") {
		return errors.New("-syslog-cert and -syslog-key go together")
	}
	proto := "tcp"
	if f.cert != "" {
		cert, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return fmt.Errorf("-syslog-cert/-syslog-key: %w", err)
		}
		cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		proto = "tls"
	}
	ln, err := srv.ListenSyslog(f.addr, cfg)
	if err != nil {
		return err
	}
	f.ln = ln
	lg.Info("syslog listening on "+ln.Addr().String(), "addr", ln.Addr().String(), "protocol", proto, "dataset", f.dataset)
	return nil
}

// stop closes the listener, waiting for the batches being stored, so none
// is cut by the storage closing.
func (f *syslogFlags) stop() {
	for _, ln := range []*server.SyslogListener{f.ln, f.udpLn} {
		if ln != nil {
			ln.Close()
		}
	}
}
