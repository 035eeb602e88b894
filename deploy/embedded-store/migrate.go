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
	"time"

	"go.mongodb.org/mongo-driver/bson"
)

// Migration from the journal (the store before Pebble: documents in memory, every change appended
// to journal.bson). A data directory holding journal.bson and no engine directory is converted at
// the first start: the journal's records are applied in order to a new engine directory beside
// it (engineDir + ".tmp"), in batches written without sync, which is then flushed, synced and
// renamed to its final name; journal.bson is then renamed journal.bson.migrated (kept for the
// operator to delete). A crash before the rename leaves the temporary directory, deleted and
// redone at the next start; after it, the next start only finishes the journal's rename.

const (
	journalName  = "journal.bson"
	migratedName = "journal.bson.migrated"
	engineName   = "pebble"
	// migrateBatch records are applied per batch: large enough to amortize a commit, small
	// enough to keep the batch's memory bounded.
	migrateBatch = 5_000
)

// migrateJournal converts dir's journal if there is one to convert.
func migrateJournal(dir string, cacheBytes int64, log *slog.Logger) error {
	journal := filepath.Join(dir, journalName)
	final := filepath.Join(dir, engineName)
	if _, err := os.Stat(journal); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(final); err == nil {
		// Converted, but stopped before renaming the journal.
		return os.Rename(journal, filepath.Join(dir, migratedName))
	}
	tmp := final + ".tmp"
	if err := os.RemoveAll(tmp); err != nil {
		return err
	}
	log.Warn("migrating the journal to the Pebble engine (once; this start takes longer)", "journal", journal)
	began := time.Now()
	s, err := openStore(tmp, cacheBytes, log)
	if err != nil {
		return err
	}
	s.sync = false
	records, err := s.replay(journal, log)
	if err != nil {
		_ = s.pdb.Close()
		return fmt.Errorf("%s: %w (nothing was changed; the next start tries again)", journal, err)
	}
	// close flushes the memtables; Pebble syncs the tables and the manifest it writes.
	if err := s.close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, final); err != nil {
		return err
	}
	if err := syncDir(dir); err != nil {
		return err
	}
	if err := os.Rename(journal, filepath.Join(dir, migratedName)); err != nil {
		return err
	}
	log.Warn("journal migrated", "records", records, "took", time.Since(began).Round(time.Millisecond).String(), "kept as", migratedName)
	return syncDir(dir)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// replay applies the journal's records in order. A record cut short at the very end (a crash in
// the middle of writing it: its command was never answered) ends the journal; any other damage
// stops the migration, naming the offset.
func (s *Store) replay(path string, log *slog.Logger) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	r := bufio.NewReaderSize(f, 1<<20)
	var offset int64
	records := 0
	lastLog := time.Now()
	s.begin()
	for {
		var size [4]byte
		if _, err := io.ReadFull(r, size[:]); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			log.Warn("journal: dropping a record cut short at its end", "offset", offset)
			break
		}
		n := int64(binary.LittleEndian.Uint32(size[:]))
		if n < 5 || n > maxBSONSize+1024 {
			return records, fmt.Errorf("damaged record at offset %d (size field %d)", offset, n)
		}
		if offset+n > info.Size() {
			log.Warn("journal: dropping a record cut short at its end", "offset", offset)
			break
		}
		raw := make([]byte, n)
		copy(raw, size[:])
		if _, err := io.ReadFull(r, raw[4:]); err != nil {
			return records, fmt.Errorf("record at offset %d: %w", offset, err)
		}
		rec, err := decodeDoc(raw)
		if err != nil {
			return records, fmt.Errorf("damaged record at offset %d: %w", offset, err)
		}
		if err := s.applyRecord(rec); err != nil {
			return records, fmt.Errorf("record at offset %d: %w", offset, err)
		}
		offset += n
		records++
		if records%migrateBatch == 0 {
			if err := s.commit(); err != nil {
				return records, err
			}
			s.begin()
			if time.Since(lastLog) > 5*time.Second {
				lastLog = time.Now()
				log.Warn("migrating the journal", "done", fmt.Sprintf("%d%%", offset*100/max(info.Size(), 1)), "records", records)
			}
		}
	}
	return records, s.commit()
}

// applyRecord redoes one journal record (the journal store's format: o is the operation, d and c
// the database and collection, v the document, index spec or index name, id a deleted _id).
func (s *Store) applyRecord(rec bson.D) error {
	m := rec.Map()
	op, _ := m["o"].(string)
	dbName, _ := m["d"].(string)
	collName, _ := m["c"].(string)
	existing := func() *Collection {
		if d := s.db(dbName, false); d != nil {
			return d.coll(collName, false)
		}
		return nil
	}
	switch op {
	case "put":
		doc, ok := m["v"].(bson.D)
		if !ok {
			return fmt.Errorf("put without a document")
		}
		c := s.db(dbName, true).coll(collName, true)
		old, err := c.byIDKey(idOf(doc))
		if err != nil {
			return err
		}
		if old != nil {
			return c.replace(old, &doc)
		}
		return c.insert(&doc)
	case "del":
		if c := existing(); c != nil {
			r, err := c.byIDKey(m["id"])
			if err != nil || r == nil {
				return err
			}
			return c.delete(r)
		}
	case "create":
		s.db(dbName, true).coll(collName, true)
	case "index":
		spec, _ := m["v"].(bson.D)
		_, err := s.db(dbName, true).coll(collName, true).createIndex(spec)
		return err
	case "dropIndex":
		if c := existing(); c != nil {
			name, _ := m["v"].(string)
			return c.dropIndex(name)
		}
	case "drop":
		if d := s.db(dbName, false); d != nil {
			return d.drop(collName)
		}
	case "dropDatabase":
		return s.dropDatabase(dbName)
	default:
		return fmt.Errorf("unknown journal record %q", op)
	}
	return nil
}

func idOf(doc bson.D) interface{} {
	for _, e := range doc {
		if e.Key == "_id" {
			return e.Value
		}
	}
	return nil
}
