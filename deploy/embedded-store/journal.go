package main

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
)

// Journal makes the in-memory store durable: every change is appended to one file as a BSON
// record (the new version of a document, a deletion, an index, a drop) and written out before
// the command that made it is answered, so a reply means the change survives the process being
// killed. At start the file is replayed; when it has grown well past the data it describes, it
// is rewritten as a snapshot (written beside it, then renamed over it, so a crash leaves one or
// the other whole).
type Journal struct {
	path    string
	file    *os.File
	buf     *bufio.Writer
	off     bool // replaying: changes are not journaled again
	sync    bool // fsync each write too (survives power loss, not just a killed process)
	records int
	log     *slog.Logger
}

func openJournal(dir string, sync bool, log *slog.Logger) (*Journal, error) {
	j := &Journal{path: filepath.Join(dir, "journal.bson"), sync: sync, log: log}
	return j, j.openAppend()
}

func (j *Journal) openAppend() error {
	f, err := os.OpenFile(j.path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	j.file = f
	j.buf = bufio.NewWriterSize(f, 1<<20)
	return nil
}

func (j *Journal) append(rec bson.D) {
	if j == nil || j.off {
		return
	}
	raw, err := bson.Marshal(rec)
	if err != nil {
		// Only a value the driver cannot encode gets here; the document came from BSON.
		j.log.Error("journal: cannot encode a record", "error", err)
		os.Exit(1)
	}
	_, _ = j.buf.Write(raw)
	j.records++
}

// flush writes what the last command changed; a command is answered only after it returns nil.
func (j *Journal) flush() error {
	if j == nil || j.off || j.buf.Buffered() == 0 {
		return nil
	}
	if err := j.buf.Flush(); err != nil {
		return err
	}
	if j.sync {
		return j.file.Sync()
	}
	return nil
}

func (j *Journal) put(c *Collection, doc bsonkit.Doc) {
	j.append(bson.D{{Key: "o", Value: "put"}, {Key: "d", Value: c.db.name}, {Key: "c", Value: c.name}, {Key: "v", Value: *doc}})
}

func (j *Journal) del(c *Collection, id interface{}) {
	j.append(bson.D{{Key: "o", Value: "del"}, {Key: "d", Value: c.db.name}, {Key: "c", Value: c.name}, {Key: "id", Value: id}})
}

func (j *Journal) create(c *Collection) {
	j.append(bson.D{{Key: "o", Value: "create"}, {Key: "d", Value: c.db.name}, {Key: "c", Value: c.name}})
}

func (j *Journal) index(c *Collection, spec bson.D) {
	j.append(bson.D{{Key: "o", Value: "index"}, {Key: "d", Value: c.db.name}, {Key: "c", Value: c.name}, {Key: "v", Value: spec}})
}

func (j *Journal) dropIndex(c *Collection, name string) {
	j.append(bson.D{{Key: "o", Value: "dropIndex"}, {Key: "d", Value: c.db.name}, {Key: "c", Value: c.name}, {Key: "v", Value: name}})
}

func (j *Journal) dropCollection(db, coll string) {
	j.append(bson.D{{Key: "o", Value: "drop"}, {Key: "d", Value: db}, {Key: "c", Value: coll}})
}

func (j *Journal) dropDatabase(db string) {
	j.append(bson.D{{Key: "o", Value: "dropDatabase"}, {Key: "d", Value: db}})
}

// replay loads the journal into the store. A record cut short by a crash mid-write is dropped
// (its command was never answered) and the file is truncated to the last whole record.
func (j *Journal) replay(s *Store) error {
	f, err := os.Open(j.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	defer f.Close()
	j.off = true
	s.loading = true
	defer func() { j.off = false }()
	r := bufio.NewReaderSize(f, 1<<20)
	var offset int64
	for {
		var size [4]byte
		if _, err := io.ReadFull(r, size[:]); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return j.truncateAndBuild(s, offset, err)
		}
		n := int(binary.LittleEndian.Uint32(size[:]))
		if n < 5 || n > 64<<20 {
			return j.truncateAndBuild(s, offset, fmt.Errorf("bad record size %d", n))
		}
		raw := make([]byte, n)
		copy(raw, size[:])
		if _, err := io.ReadFull(r, raw[4:]); err != nil {
			return j.truncateAndBuild(s, offset, err)
		}
		rec, err := decodeDoc(raw)
		if err != nil {
			return j.truncateAndBuild(s, offset, err)
		}
		if err := s.applyRecord(rec); err != nil {
			j.log.Warn("journal: record not applied", "error", err)
		}
		offset += int64(n)
		j.records++
	}
	return s.buildIndexes()
}

func (j *Journal) truncateAndBuild(s *Store, offset int64, cause error) error {
	j.log.Warn("journal: dropping an incomplete last record", "offset", offset, "cause", cause)
	if err := os.Truncate(j.path, offset); err != nil {
		return err
	}
	return s.buildIndexes()
}

func (s *Store) applyRecord(rec bson.D) error {
	m := rec.Map()
	op, _ := m["o"].(string)
	dbName, _ := m["d"].(string)
	collName, _ := m["c"].(string)
	switch op {
	case "put":
		doc, ok := m["v"].(bson.D)
		if !ok {
			return fmt.Errorf("put without a document")
		}
		c := s.db(dbName, true).coll(collName, true)
		if old := c.byIDKey(bsonkit.Get(&doc, "_id")); old != nil {
			return c.replace(old, &doc)
		}
		return c.insert(&doc)
	case "del":
		if d := s.db(dbName, false); d != nil {
			if c := d.coll(collName, false); c != nil {
				if r := c.byIDKey(m["id"]); r != nil {
					c.delete(r)
				}
			}
		}
	case "create":
		s.db(dbName, true).coll(collName, true)
	case "index":
		spec, _ := m["v"].(bson.D)
		_, err := s.db(dbName, true).coll(collName, true).createIndex(spec, true)
		return err
	case "dropIndex":
		if d := s.db(dbName, false); d != nil {
			if c := d.coll(collName, false); c != nil {
				name, _ := m["v"].(string)
				return c.dropIndex(name)
			}
		}
	case "drop":
		if d := s.db(dbName, false); d != nil {
			d.drop(collName)
		}
	case "dropDatabase":
		s.dropDatabase(dbName)
	default:
		return fmt.Errorf("unknown journal record %q", op)
	}
	return nil
}

// compactIfLarge rewrites the journal as a snapshot of the store when most of its records
// describe documents that have since changed or gone.
func (j *Journal) compactIfLarge(s *Store) error {
	live := 0
	for _, d := range s.dbs {
		live += 1 + len(d.colls)
		for _, c := range d.colls {
			live += c.natural.Len() + len(c.indexes)
		}
	}
	if j.records < 2*live+10_000 {
		return nil
	}
	j.log.Info("journal: compacting", "records", j.records, "live", live)
	tmp := j.path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	j.file.Close()
	j.buf = w
	j.records = 0
	for _, dbName := range s.dbNames() {
		d := s.dbs[dbName]
		for _, collName := range d.collNames() {
			c := d.colls[collName]
			j.create(c)
			for _, ix := range c.indexes {
				if !ix.isID() {
					j.index(c, ix.spec)
				}
			}
			c.natural.Scan(func(r *record) bool {
				j.put(c, r.doc)
				return true
			})
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	f.Close()
	if err := os.Rename(tmp, j.path); err != nil {
		return err
	}
	return j.openAppend()
}
