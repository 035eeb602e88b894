// Command embedded-store is the chat server's embedded MongoDB-compatible store: a MongoDB
// wire-protocol server keeping its data in Pebble (CockroachDB's LSM engine) with real indexes
// (engine.go). Query matching, update operators, sorting and projection are lungo's
// (github.com/256dpi/lungo), which follows MongoDB's semantics; the planner (plan.go) picks
// indexes by MongoDB's rules.
//
// The chat server starts it as a child process when MONGO_URL is not set, so one command runs
// everything on a bare machine. It listens on -listen, keeps its data under -data, and stops
// cleanly on SIGTERM or SIGINT, or when its parent goes away (stdin closes). The offline tools
// (check, repair, backup) are subcommands: tools.go.
//
// A command's way through (README.md in this folder says which file holds what, and where the
// tests are): wire.go reads the message off the connection (its BSON decoded by decode.go);
// Server.run (dispatch.go) finds the command's handler and runs it under the store's lock; a
// read plans and runs its query (filter.go, plan.go, query.go, scan.go), a write changes
// documents and their index entries (writes.go, collection.go, update.go, index.go, keyenc.go);
// the store (store.go) commits a write's changes to Pebble (engine.go) as one synced batch before
// the reply; the reply (found documents as a cursor's first batch: cursors.go) is encoded by
// encode.go and written back by wire.go.
//
// The reference (engine, durability, damage, check, repair, backup, limits, figures) is
// docs/embedded-store.md at the repository's root.
package main
