// Command embedded-store runs FerretDB (SQLite backend) as a MongoDB wire-protocol server.
//
// The chat server starts it as a child process when MONGO_URL is not set, so one command runs
// everything on a bare machine. It listens on -listen, keeps its data under -data, and stops
// cleanly on SIGTERM or SIGINT, or when its parent goes away (stdin closes).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	data := flag.String("data", "data/store", "directory for the SQLite databases")
	level := flag.String("log-level", "warn", "log level: debug, info, warn, error")
	watchStdin := flag.Bool("watch-stdin", false, "exit when standard input closes (parent died)")
	flag.Parse()

	var lv slog.Level
	if err := lv.UnmarshalText([]byte(*level)); err != nil {
		fail(err)
	}
	logger := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: lv}))

	dir, err := filepath.Abs(*data)
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + dir + "/",
	})
	if err != nil {
		fail(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	if *watchStdin {
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	logger.Info("embedded store starting", "listen", *listen, "data", dir)
	if err := f.Run(ctx); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "embedded-store:", err)
	os.Exit(1)
}
