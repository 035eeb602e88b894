package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2"
	"go.mongodb.org/mongo-driver/bson"
)

// The offline tools, run on a store's data directory (the -data of the server) while no store
// runs on it (backup also while one does: through the running server, see cmdStoreBackup):
//
//	embedded-store check  -data DIR          verify every table's blocks, every document, every index entry
//	embedded-store repair -data DIR -to NEW  salvage what is readable into NEW, reporting what is lost
//	embedded-store backup -data DIR -to NEW  a consistent copy (Pebble's checkpoint)
//
// Each prints its report on stdout and exits 0 when all is well, 1 when it found damage or failed.
func runTool(name string, args []string) int {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	data := fs.String("data", "data/store", "the store's data directory")
	to := fs.String("to", "", "the new data directory (repair, backup)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	engine := filepath.Join(*data, engineName)
	if _, err := os.Stat(engine); err != nil {
		fmt.Printf("%s: no engine directory (%v)\n", engine, err)
		return 1
	}
	switch name {
	case "check":
		return exitCode(checkStore(engine, os.Stdout, log))
	case "repair", "backup":
		if *to == "" {
			fmt.Fprintf(os.Stderr, "embedded-store %s: -to NEW_DIR is required\n", name)
			return 2
		}
		if entries, err := os.ReadDir(*to); err == nil && len(entries) > 0 {
			fmt.Fprintf(os.Stderr, "embedded-store %s: %s is not empty\n", name, *to)
			return 2
		}
		if err := os.MkdirAll(*to, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if name == "repair" {
			return exitCode(repairStore(engine, filepath.Join(*to, engineName), os.Stdout, log))
		}
		return exitCode(backupOffline(engine, filepath.Join(*to, engineName), os.Stdout, log))
	}
	fmt.Fprintf(os.Stderr, "embedded-store: unknown command %q (check, repair, backup)\n", name)
	return 2
}

func exitCode(ok bool) int {
	if ok {
		return 0
	}
	return 1
}

// backupOffline copies a store no server runs on, through a checkpoint of it opened here.
func backupOffline(engine, dest string, out io.Writer, log *slog.Logger) bool {
	s, err := openVerified(engine, 8<<20, log, true)
	if err != nil {
		fmt.Fprintln(out, err)
		return false
	}
	defer s.pdb.Close()
	if err := s.backup(dest); err != nil {
		fmt.Fprintln(out, err)
		return false
	}
	fmt.Fprintf(out, "backup written to %s\n", filepath.Dir(dest))
	return true
}

// backup writes a checkpoint of the open engine into dest (a directory that does not exist yet):
// hard links to its tables, which never change, and copies of its manifest and log, consistent
// as of one instant. Each write command is one batch, so none is half in it; the server goes on
// answering meanwhile.
func (s *Store) backup(dest string) error {
	return s.pdb.Checkpoint(dest, pebble.WithFlushedWAL())
}

// cmdStoreBackup is the backup of a running store: {storeBackup: 1, to: DIR} on the admin
// database writes the checkpoint into DIR/pebble, DIR being a new or empty directory.
func cmdStoreBackup(s *Server, _ string, cmd bson.D) (bson.D, error) {
	to, isStr := field(cmd, "to").(string)
	if !isStr || !filepath.IsAbs(to) {
		return nil, cmdError(2, "BadValue", "storeBackup needs to: an absolute directory path")
	}
	if entries, err := os.ReadDir(to); err == nil && len(entries) > 0 {
		return nil, cmdError(2, "BadValue", to+" is not empty")
	}
	return s.read(func() (bson.D, error) {
		if err := s.store.backup(filepath.Join(to, engineName)); err != nil {
			return nil, cmdError(8, "UnknownError", err.Error())
		}
		return bson.D{{Key: "to", Value: to}}, nil
	})
}
