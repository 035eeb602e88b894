package main

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// The commands the MongoDB drivers and Mongoose send, answered as MongoDB 7.0 answers them.

const (
	maxWireVersion = 21 // MongoDB 7.0
	maxBSONSize    = 16 * 1024 * 1024
	maxMessageSize = 48_000_000
	batchBytes     = 4 * 1024 * 1024
)

type Server struct {
	store   *Store
	cursors *cursors
	conns   atomic.Int64
	started time.Time
}

type handler func(s *Server, db string, cmd bson.D) (bson.D, error)

var commands map[string]handler

func init() {
	commands = map[string]handler{
		"hello": cmdHello, "isMaster": cmdHello, "ismaster": cmdHello,
		"ping":             ok,
		"buildInfo":        cmdBuildInfo,
		"buildinfo":        cmdBuildInfo,
		"getParameter":     ok,
		"endSessions":      ok,
		"saslStart":        unsupported,
		"getLastError":     ok,
		"hostInfo":         ok,
		"whatsmyuri":       ok,
		"serverStatus":     cmdServerStatus,
		"listDatabases":    cmdListDatabases,
		"listCollections":  cmdListCollections,
		"create":           cmdCreate,
		"drop":             cmdDrop,
		"dropDatabase":     cmdDropDatabase,
		"createIndexes":    cmdCreateIndexes,
		"listIndexes":      cmdListIndexes,
		"dropIndexes":      cmdDropIndexes,
		"find":             cmdFind,
		"getMore":          cmdGetMore,
		"killCursors":      cmdKillCursors,
		"count":            cmdCount,
		"distinct":         cmdDistinct,
		"aggregate":        cmdAggregate,
		"insert":           cmdInsert,
		"update":           cmdUpdate,
		"delete":           cmdDelete,
		"findAndModify":    cmdFindAndModify,
		"findandmodify":    cmdFindAndModify,
		"collStats":        cmdCollStats,
		"dbStats":          ok,
		"connectionStatus": ok,
		"storeBackup":      cmdStoreBackup,
	}
}

func (s *Server) run(db string, cmd bson.D) bson.D {
	if len(cmd) == 0 {
		return cmdError(59, "CommandNotFound", "empty command").reply()
	}
	h := commands[cmd[0].Key]
	if h == nil {
		return cmdError(59, "CommandNotFound", fmt.Sprintf("no such command: '%s'", cmd[0].Key)).reply()
	}
	res, err := h(s, db, cmd)
	if err != nil {
		if ce, isCmd := err.(*CommandError); isCmd {
			return ce.reply()
		}
		return cmdError(8, "UnknownError", err.Error()).reply()
	}
	return append(res, bson.E{Key: "ok", Value: 1.0})
}

func ok(*Server, string, bson.D) (bson.D, error) { return bson.D{}, nil }

func unsupported(_ *Server, _ string, cmd bson.D) (bson.D, error) {
	return nil, cmdError(115, "CommandNotSupported", fmt.Sprintf("%s is not supported by the embedded store", cmd[0].Key))
}

func cmdHello(s *Server, _ string, cmd bson.D) (bson.D, error) {
	primary := "isWritablePrimary"
	if cmd[0].Key != "hello" {
		primary = "ismaster"
	}
	return bson.D{
		{Key: "helloOk", Value: true},
		{Key: primary, Value: true},
		{Key: "maxBsonObjectSize", Value: int32(maxBSONSize)},
		{Key: "maxMessageSizeBytes", Value: int32(maxMessageSize)},
		{Key: "maxWriteBatchSize", Value: int32(100_000)},
		{Key: "localTime", Value: primitive.NewDateTimeFromTime(time.Now())},
		{Key: "connectionId", Value: int32(s.conns.Load())},
		{Key: "minWireVersion", Value: int32(0)},
		{Key: "maxWireVersion", Value: int32(maxWireVersion)},
		{Key: "readOnly", Value: false},
	}, nil
}

func cmdBuildInfo(*Server, string, bson.D) (bson.D, error) {
	return bson.D{
		{Key: "version", Value: "7.0.0"},
		{Key: "versionArray", Value: bson.A{int32(7), int32(0), int32(0), int32(0)}},
		{Key: "gitVersion", Value: "chat-embedded-store"},
		{Key: "bits", Value: int32(64)},
		{Key: "maxBsonObjectSize", Value: int32(maxBSONSize)},
	}, nil
}

func cmdServerStatus(s *Server, _ string, _ bson.D) (bson.D, error) {
	return bson.D{
		{Key: "host", Value: "localhost"},
		{Key: "version", Value: "7.0.0"},
		{Key: "process", Value: "chat-embedded-store"},
		{Key: "uptime", Value: time.Since(s.started).Seconds()},
		{Key: "connections", Value: bson.D{{Key: "current", Value: int32(s.conns.Load())}}},
	}, nil
}

// Reads take the store's lock shared; writes take it alone, put all their changes in one batch
// and commit it, synced, before answering.
func (s *Server) read(f func() (bson.D, error)) (bson.D, error) {
	s.store.mu.RLock()
	defer s.store.mu.RUnlock()
	return f()
}

func (s *Server) write(f func() (bson.D, error)) (bson.D, error) {
	s.store.mu.Lock()
	defer s.store.mu.Unlock()
	s.store.begin()
	res, err := f()
	if cerr := s.store.commit(); cerr != nil {
		// Decision: a failed commit (a full or failing disk) stops the store. The catalog in memory
		// already counts the command, and a restart reads it back from what is on disk; the
		// supervising node restarts the store.
		fatal(fmt.Errorf("commit failed: %w", cerr))
	}
	return res, err
}

func field(cmd bson.D, key string) interface{} {
	for _, e := range cmd {
		if e.Key == key {
			return e.Value
		}
	}
	return nil
}

func docField(cmd bson.D, key string) (bsonkit.Doc, error) {
	switch v := field(cmd, key).(type) {
	case nil:
		return nil, nil
	case bson.D:
		return &v, nil
	default:
		return nil, cmdError(14, "TypeMismatch", fmt.Sprintf("'%s' must be a document", key))
	}
}

func collName(cmd bson.D) (string, error) {
	name, isStr := cmd[0].Value.(string)
	if !isStr || name == "" {
		return "", cmdError(73, "InvalidNamespace", fmt.Sprintf("collection name for %s must be a non-empty string", cmd[0].Key))
	}
	return name, nil
}

func (s *Server) collection(db string, cmd bson.D, create bool) (*Collection, string, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, "", err
	}
	d := s.store.db(db, create)
	if d == nil {
		return nil, name, nil
	}
	return d.coll(name, create), name, nil
}
