// Command embedded-store is the chat server's embedded MongoDB-compatible store: a MongoDB
// wire-protocol server holding its data in memory with real indexes, made durable by an
// append-only journal on disk (see journal.go). Query matching, update operators, sorting and
// projection are lungo's (github.com/256dpi/lungo), which follows MongoDB's semantics; the
// planner (query.go) picks indexes by MongoDB's rules.
//
// The chat server starts it as a child process when MONGO_URL is not set, so one command runs
// everything on a bare machine. It listens on -listen, keeps its data under -data, and stops
// cleanly on SIGTERM or SIGINT, or when its parent goes away (stdin closes).
package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	data := flag.String("data", "data/store", "directory for the journal")
	level := flag.String("log-level", "warn", "log level: debug, info, warn, error")
	watchStdin := flag.Bool("watch-stdin", false, "exit when standard input closes (parent died)")
	fsync := flag.Bool("fsync", false, "fsync the journal after each write (survive power loss, not only a killed process)")
	flag.Parse()

	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		fatal(err)
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))

	dir, err := filepath.Abs(*data)
	if err != nil {
		fatal(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fatal(err)
	}

	store := newStore()
	journal, err := openJournal(dir, *fsync, log)
	if err != nil {
		fatal(err)
	}
	began := time.Now()
	// Loading makes millions of small objects that all stay: collect garbage rarely meanwhile.
	gc := debug.SetGCPercent(400)
	if err := journal.replay(store); err != nil {
		fatal(err)
	}
	debug.SetGCPercent(gc)
	store.journal = journal
	if err := journal.compactIfLarge(store); err != nil {
		fatal(err)
	}
	log.Info("embedded store loaded", "data", dir, "records", journal.records, "took", time.Since(began).String())

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fatal(err)
	}
	srv := &Server{store: store, cursors: newCursors(), started: time.Now()}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	if *watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop <- syscall.SIGTERM
		}()
	}
	go func() {
		<-stop
		// Wait for the command being written, then close: every answered write is on disk.
		store.mu.Lock()
		_ = journal.flush()
		os.Exit(0)
	}()

	log.Info("embedded store listening", "listen", *listen)
	for {
		conn, err := ln.Accept()
		if err != nil {
			fatal(err)
		}
		go srv.serve(conn, log)
	}
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "embedded-store:", err)
	os.Exit(1)
}
