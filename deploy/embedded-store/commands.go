package main

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
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

func cmdListDatabases(s *Server, _ string, cmd bson.D) (bson.D, error) {
	return s.read(func() (bson.D, error) {
		list := bson.A{}
		for _, n := range s.store.dbNames() {
			list = append(list, bson.D{{Key: "name", Value: n}, {Key: "sizeOnDisk", Value: int64(0)}, {Key: "empty", Value: false}})
		}
		return bson.D{{Key: "databases", Value: list}, {Key: "totalSize", Value: int64(0)}}, nil
	})
}

func cmdListCollections(s *Server, db string, cmd bson.D) (bson.D, error) {
	filter, err := docField(cmd, "filter")
	if err != nil {
		return nil, err
	}
	return s.read(func() (bson.D, error) {
		var docs bsonkit.List
		if d := s.store.db(db, false); d != nil {
			for _, n := range d.collNames() {
				doc := bson.D{{Key: "name", Value: n}, {Key: "type", Value: "collection"}, {Key: "options", Value: bson.D{}}, {Key: "info", Value: bson.D{{Key: "readOnly", Value: false}}}}
				if filter != nil {
					if m, err := mongokit.Match(&doc, filter); err != nil || !m {
						continue
					}
				}
				docs = append(docs, &doc)
			}
		}
		return s.cursors.first(db+".$cmd.listCollections", docs, 0), nil
	})
}

func cmdCreate(s *Server, db string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	return s.write(func() (bson.D, error) {
		d := s.store.db(db, true)
		if d.coll(name, false) != nil {
			return nil, cmdError(48, "NamespaceExists", fmt.Sprintf("Collection %s.%s already exists.", db, name))
		}
		d.coll(name, true)
		return bson.D{}, nil
	})
}

func cmdDrop(s *Server, db string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	return s.write(func() (bson.D, error) {
		d := s.store.db(db, false)
		if d == nil || d.coll(name, false) == nil {
			return nil, cmdError(26, "NamespaceNotFound", "ns not found")
		}
		if err := d.drop(name); err != nil {
			return nil, err
		}
		return bson.D{{Key: "ns", Value: db + "." + name}}, nil
	})
}

func cmdDropDatabase(s *Server, db string, _ bson.D) (bson.D, error) {
	return s.write(func() (bson.D, error) {
		if err := s.store.dropDatabase(db); err != nil {
			return nil, err
		}
		return bson.D{{Key: "dropped", Value: db}}, nil
	})
}

func cmdCreateIndexes(s *Server, db string, cmd bson.D) (bson.D, error) {
	specs, isArr := field(cmd, "indexes").(bson.A)
	if !isArr {
		return nil, cmdError(9, "FailedToParse", "indexes must be an array")
	}
	return s.write(func() (bson.D, error) {
		c, _, err := s.collection(db, cmd, true)
		if err != nil {
			return nil, err
		}
		before := len(c.indexes)
		for _, sp := range specs {
			spec, isDoc := sp.(bson.D)
			if !isDoc {
				return nil, cmdError(9, "FailedToParse", "each index must be a document")
			}
			if _, err := c.createIndex(spec); err != nil {
				return nil, err
			}
		}
		return bson.D{{Key: "numIndexesBefore", Value: int32(before)}, {Key: "numIndexesAfter", Value: int32(len(c.indexes))}, {Key: "createdCollectionAutomatically", Value: false}}, nil
	})
}

func cmdListIndexes(s *Server, db string, cmd bson.D) (bson.D, error) {
	return s.read(func() (bson.D, error) {
		c, name, err := s.collection(db, cmd, false)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, cmdError(26, "NamespaceNotFound", fmt.Sprintf("ns does not exist: %s.%s", db, name))
		}
		var docs bsonkit.List
		for _, ix := range c.indexes {
			spec := bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: ix.keySpec}, {Key: "name", Value: ix.name}}
			if ix.unique && !ix.isID() {
				spec = append(spec, bson.E{Key: "unique", Value: true})
			}
			if ix.sparse {
				spec = append(spec, bson.E{Key: "sparse", Value: true})
			}
			docs = append(docs, &spec)
		}
		return s.cursors.first(c.ns(), docs, 0), nil
	})
}

func cmdDropIndexes(s *Server, db string, cmd bson.D) (bson.D, error) {
	return s.write(func() (bson.D, error) {
		c, name, err := s.collection(db, cmd, false)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, cmdError(26, "NamespaceNotFound", fmt.Sprintf("ns not found %s.%s", db, name))
		}
		before := len(c.indexes)
		switch idx := field(cmd, "index").(type) {
		case string:
			if idx == "*" {
				for _, ix := range append([]*Index{}, c.indexes...) {
					if !ix.isID() {
						_ = c.dropIndex(ix.name)
					}
				}
			} else if err := c.dropIndex(idx); err != nil {
				return nil, err
			}
		case bson.D:
			found := false
			for _, ix := range c.indexes {
				if bsonkit.Compare(ix.keySpec, idx) == 0 {
					found = true
					if err := c.dropIndex(ix.name); err != nil {
						return nil, err
					}
					break
				}
			}
			if !found {
				return nil, cmdError(27, "IndexNotFound", "can't find index with key")
			}
		default:
			return nil, cmdError(14, "TypeMismatch", "index must be a name or a key pattern")
		}
		return bson.D{{Key: "nIndexesWas", Value: int32(before)}}, nil
	})
}

func cmdCollStats(s *Server, db string, cmd bson.D) (bson.D, error) {
	return s.read(func() (bson.D, error) {
		c, _, err := s.collection(db, cmd, false)
		if err != nil {
			return nil, err
		}
		n := int64(0)
		if c != nil {
			n = c.count
		}
		return bson.D{{Key: "ns", Value: db + "." + cmd[0].Value.(string)}, {Key: "count", Value: int32(n)}}, nil
	})
}

// findIn runs a query on the command's collection; a collection that does not exist holds nothing.
func (s *Server) findIn(db string, cmd bson.D, o findOpts) ([]*record, string, error) {
	c, name, err := s.collection(db, cmd, false)
	if err != nil || c == nil {
		return nil, name, err
	}
	found, err := c.find(o)
	return found, name, err
}

// parseFind reads the filter, sort, skip and limit of a find-like command.
func parseFind(cmd bson.D, filterKey string) (findOpts, error) {
	var o findOpts
	var err error
	if o.filter, err = docField(cmd, filterKey); err != nil {
		return o, err
	}
	if o.filter == nil {
		o.filter = &bson.D{}
	}
	if o.filter, err = prepareFilter(o.filter); err != nil {
		return o, err
	}
	if o.sort, err = docField(cmd, "sort"); err != nil {
		return o, err
	}
	switch h := field(cmd, "hint").(type) {
	case string, bson.D:
		o.hint = h
	case nil:
	default:
		return o, cmdError(2, "BadValue", "hint must be a string or an object")
	}
	o.skip = intOf(field(cmd, "skip"))
	o.limit = intOf(field(cmd, "limit"))
	if o.limit < 0 {
		o.limit = -o.limit
	}
	if o.skip < 0 {
		return o, cmdError(2, "BadValue", "skip value must be non-negative")
	}
	return o, nil
}

func project(list []*record, projection bsonkit.Doc) (bsonkit.List, error) {
	docs := make(bsonkit.List, len(list))
	for i, r := range list {
		docs[i] = r.doc
	}
	if projection == nil || len(*projection) == 0 {
		return docs, nil
	}
	if fields, keepID, ok := simpleInclusion(*projection); ok {
		out := make(bsonkit.List, len(docs))
		for i, d := range docs {
			out[i] = include(d, fields, keepID)
		}
		return out, nil
	}
	out, err := mongokit.ProjectList(docs, projection)
	if err != nil {
		return nil, cmdError(2, "BadValue", err.Error())
	}
	return out, nil
}

// simpleInclusion reads a projection that only names top-level fields to keep ({a: 1, b: 1},
// with _id: 0 or 1): the common case, answered without lungo's general projection, which costs
// ten times as much. ok is false for anything else (paths, exclusions, operators, expressions).
func simpleInclusion(projection bson.D) (fields map[string]struct{}, keepID, ok bool) {
	fields, keepID = map[string]struct{}{}, true
	for _, e := range projection {
		if e.Key == "" || strings.ContainsAny(e.Key, ".$") {
			return nil, false, false
		}
		var on bool
		switch v := e.Value.(type) {
		case bool:
			on = v
		case int32, int64, float64:
			n, _ := number(v)
			on = n != 0
		default:
			return nil, false, false
		}
		if e.Key == "_id" {
			keepID = on
			continue
		}
		if !on {
			return nil, false, false
		}
		fields[e.Key] = struct{}{}
	}
	return fields, keepID, len(fields) > 0
}

// include keeps the document's fields that are named (and _id), in the document's order.
func include(doc bsonkit.Doc, fields map[string]struct{}, keepID bool) bsonkit.Doc {
	out := make(bson.D, 0, len(fields)+1)
	for _, e := range *doc {
		if _, named := fields[e.Key]; named || (keepID && e.Key == "_id") {
			out = append(out, e)
		}
	}
	return &out
}

func cmdFind(s *Server, db string, cmd bson.D) (bson.D, error) {
	o, err := parseFind(cmd, "filter")
	if err != nil {
		return nil, err
	}
	projection, err := docField(cmd, "projection")
	if err != nil {
		return nil, err
	}
	batch := intOf(field(cmd, "batchSize"))
	single := truthy(field(cmd, "singleBatch"))
	return s.read(func() (bson.D, error) {
		found, name, err := s.findIn(db, cmd, o)
		if err != nil {
			return nil, err
		}
		docs, err := project(found, projection)
		if err != nil {
			return nil, err
		}
		if single {
			batch = len(docs)
		}
		return s.cursors.first(db+"."+name, docs, batch), nil
	})
}

func cmdGetMore(s *Server, db string, cmd bson.D) (bson.D, error) {
	id, _ := cmd[0].Value.(int64)
	return s.cursors.more(id, intOf(field(cmd, "batchSize")))
}

func cmdKillCursors(s *Server, _ string, cmd bson.D) (bson.D, error) {
	ids, _ := field(cmd, "cursors").(bson.A)
	killed := bson.A{}
	for _, v := range ids {
		if id, isInt := v.(int64); isInt {
			s.cursors.kill(id)
			killed = append(killed, id)
		}
	}
	return bson.D{{Key: "cursorsKilled", Value: killed}, {Key: "cursorsNotFound", Value: bson.A{}}, {Key: "cursorsAlive", Value: bson.A{}}, {Key: "cursorsUnknown", Value: bson.A{}}}, nil
}

func cmdCount(s *Server, db string, cmd bson.D) (bson.D, error) {
	o, err := parseFind(cmd, "query")
	if err != nil {
		return nil, err
	}
	return s.read(func() (bson.D, error) {
		if len(*o.filter) == 0 && o.skip == 0 && o.limit == 0 && o.hint == nil {
			// Without a filter: the catalog's count, no document read.
			c, _, err := s.collection(db, cmd, false)
			if err != nil || c == nil {
				return bson.D{{Key: "n", Value: int32(0)}}, err
			}
			return bson.D{{Key: "n", Value: int32(c.count)}}, nil
		}
		found, _, err := s.findIn(db, cmd, o)
		if err != nil {
			return nil, err
		}
		return bson.D{{Key: "n", Value: int32(len(found))}}, nil
	})
}

func cmdDistinct(s *Server, db string, cmd bson.D) (bson.D, error) {
	o, err := parseFind(cmd, "query")
	if err != nil {
		return nil, err
	}
	key, isStr := field(cmd, "key").(string)
	if !isStr {
		return nil, cmdError(14, "TypeMismatch", "key must be a string")
	}
	return s.read(func() (bson.D, error) {
		found, _, err := s.findIn(db, cmd, o)
		if err != nil {
			return nil, err
		}
		docs, _ := project(found, nil)
		values := mongokit.Distinct(docs, key)
		if values == nil {
			values = bson.A{}
		}
		return bson.D{{Key: "values", Value: values}}, nil
	})
}

// cmdAggregate runs the pipelines Mongoose and the drivers build for counting
// (countDocuments: $match, $skip, $limit, $group by a constant with $sum) and simple reads
// ($match, $sort, $skip, $limit, $project).
func cmdAggregate(s *Server, db string, cmd bson.D) (bson.D, error) {
	pipeline, isArr := field(cmd, "pipeline").(bson.A)
	if !isArr {
		return nil, cmdError(14, "TypeMismatch", "pipeline must be an array")
	}
	return s.read(func() (bson.D, error) {
		var err error
		o := findOpts{filter: &bson.D{}}
		stages := []bson.D{}
		for _, st := range pipeline {
			stage, isDoc := st.(bson.D)
			if !isDoc || len(stage) != 1 {
				return nil, cmdError(40323, "Location40323", "A pipeline stage specification object must contain exactly one field.")
			}
			stages = append(stages, stage)
		}
		// Leading $match, $sort, $skip and $limit stages become the query itself, so it uses an index.
		i := 0
	lead:
		for ; i < len(stages); i++ {
			v := stages[i][0].Value
			switch stages[i][0].Key {
			case "$match":
				if len(*o.filter) > 0 || o.sort != nil || o.skip > 0 || o.limit > 0 {
					break lead
				}
				m, isDoc := v.(bson.D)
				if !isDoc {
					return nil, cmdError(15959, "Location15959", "the match filter must be an expression in an object")
				}
				if o.filter, err = prepareFilter(&m); err != nil {
					return nil, err
				}
			case "$sort":
				if o.sort != nil || o.skip > 0 || o.limit > 0 {
					break lead
				}
				so, isDoc := v.(bson.D)
				if !isDoc {
					return nil, cmdError(15973, "Location15973", "the $sort key specification must be an object")
				}
				o.sort = &so
			case "$skip":
				if o.limit > 0 {
					break lead
				}
				o.skip += intOf(v)
			case "$limit":
				if o.limit == 0 || intOf(v) < o.limit {
					o.limit = intOf(v)
				}
			default:
				break lead
			}
		}
		found, name, err := s.findIn(db, cmd, o)
		if err != nil {
			return nil, err
		}
		docs, _ := project(found, nil)
		for ; i < len(stages); i++ {
			if docs, err = runStage(stages[i], docs); err != nil {
				return nil, err
			}
		}
		return s.cursors.first(db+"."+name, docs, 0), nil
	})
}

func runStage(stage bson.D, docs bsonkit.List) (bsonkit.List, error) {
	v := stage[0].Value
	switch stage[0].Key {
	case "$match":
		m, _ := v.(bson.D)
		f, err := prepareFilter(&m)
		if err != nil {
			return nil, err
		}
		filtered, err := mongokit.Filter(docs, f, 0)
		if err != nil {
			return nil, cmdError(2, "BadValue", err.Error())
		}
		return filtered, nil
	case "$sort":
		so, _ := v.(bson.D)
		return mongokit.Sort(docs, &so)
	case "$skip":
		n := intOf(v)
		if n >= len(docs) {
			return nil, nil
		}
		return docs[n:], nil
	case "$limit":
		if n := intOf(v); n < len(docs) {
			return docs[:n], nil
		}
		return docs, nil
	case "$project":
		p, _ := v.(bson.D)
		return mongokit.ProjectList(docs, &p)
	case "$group":
		return group(v, docs)
	}
	return nil, cmdError(40324, "Location40324", fmt.Sprintf("Unrecognized pipeline stage name: '%s' (the embedded store runs $match, $sort, $skip, $limit, $project and $group)", stage[0].Key))
}

// group runs $group: an _id that is a constant, a "$field", or a document of those; and the
// accumulators $sum, $push, $min, $max and $first of a "$field" (or, for $sum, a constant).
func group(spec interface{}, docs bsonkit.List) (bsonkit.List, error) {
	g, isDoc := spec.(bson.D)
	if !isDoc {
		return nil, cmdError(15947, "Location15947", "a group's fields must be specified in an object")
	}
	type field struct {
		name, op string
		arg      interface{}
	}
	var idSpec interface{}
	var fields []field
	for _, e := range g {
		if e.Key == "_id" {
			idSpec = e.Value
			continue
		}
		op, isDoc := e.Value.(bson.D)
		if !isDoc || len(op) != 1 {
			return nil, cmdError(40234, "Location40234", fmt.Sprintf("The field '%s' must be an accumulator object", e.Key))
		}
		switch op[0].Key {
		case "$sum", "$push", "$min", "$max", "$first":
		default:
			return nil, cmdError(15952, "Location15952", fmt.Sprintf("unsupported accumulator %s for %s (the embedded store runs $sum, $push, $min, $max and $first)", op[0].Key, e.Key))
		}
		fields = append(fields, field{name: e.Key, op: op[0].Key, arg: op[0].Value})
	}
	type acc struct {
		id     interface{}
		sums   map[string]float64
		ints   map[string]bool
		values map[string]interface{} // $push (bson.A), $min, $max, $first
	}
	var order []*acc
	groups := map[string]*acc{}
	for _, doc := range docs {
		id := evalGroupValue(doc, idSpec)
		if d, isDoc := idSpec.(bson.D); isDoc {
			parts := make(bson.D, len(d))
			for i, e := range d {
				parts[i] = bson.E{Key: e.Key, Value: evalGroupValue(doc, e.Value)}
			}
			id = parts
		}
		k := groupKey(id)
		a := groups[k]
		if a == nil {
			a = &acc{id: id, sums: map[string]float64{}, ints: map[string]bool{}, values: map[string]interface{}{}}
			groups[k] = a
			order = append(order, a)
		}
		for _, f := range fields {
			v := evalGroupValue(doc, f.arg)
			switch f.op {
			case "$sum":
				if n, isNum := number(v); isNum {
					a.sums[f.name] += n
				}
				if _, isDouble := v.(float64); !isDouble {
					a.ints[f.name] = true
				}
			case "$push":
				list, _ := a.values[f.name].(bson.A)
				a.values[f.name] = append(list, v)
			case "$first":
				if _, set := a.values[f.name]; !set {
					a.values[f.name] = v
				}
			case "$min", "$max":
				if v == nil {
					continue // null and missing values are ignored, as in MongoDB
				}
				cur, set := a.values[f.name]
				c := 0
				if set {
					c = bsonkit.Compare(v, cur)
				}
				if !set || (f.op == "$min" && c < 0) || (f.op == "$max" && c > 0) {
					a.values[f.name] = v
				}
			}
		}
	}
	out := make(bsonkit.List, 0, len(order))
	for _, a := range order {
		d := bson.D{{Key: "_id", Value: a.id}}
		for _, f := range fields {
			switch {
			case f.op != "$sum":
				v := a.values[f.name]
				if v == nil && f.op == "$push" {
					v = bson.A{}
				}
				d = append(d, bson.E{Key: f.name, Value: v})
			case a.ints[f.name]:
				d = append(d, bson.E{Key: f.name, Value: int32(a.sums[f.name])})
			default:
				d = append(d, bson.E{Key: f.name, Value: a.sums[f.name]})
			}
		}
		out = append(out, &d)
	}
	return out, nil
}

// groupKey: a document _id of numbers, strings and nulls as their index key encodings (cheaper
// than encoding the document per row; values that compare equal get one key, as in MongoDB), any
// other _id as idKey.
func groupKey(id interface{}) string {
	d, isDoc := id.(bson.D)
	if !isDoc {
		return idKey(id)
	}
	key := []byte{classDocument}
	for _, e := range d {
		switch e.Value.(type) {
		case nil, int32, int64, float64, string:
			key = appendString(key, e.Key)
			key = appendValue(key, e.Value)
		default:
			return idKey(id)
		}
	}
	return string(key)
}

// evalGroupValue is a "$field" path's value in the document (null when missing), or the constant.
func evalGroupValue(doc bsonkit.Doc, spec interface{}) interface{} {
	if path, isStr := spec.(string); isStr && strings.HasPrefix(path, "$") {
		v := bsonkit.Get(doc, path[1:])
		if v == bsonkit.Missing {
			return nil
		}
		return v
	}
	return spec
}
