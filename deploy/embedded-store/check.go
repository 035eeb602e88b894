package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/cockroachdb/pebble/v2"
)

// checkStore verifies a data directory offline: every table's blocks (checksums), every document
// as BSON and its count against the catalog, every index entry against its document and every
// document's entries. It prints each problem and a summary; ok is false when it found any.
func checkStore(engine string, out io.Writer, log *slog.Logger) bool {
	problems := 0
	report := func(format string, args ...interface{}) {
		problems++
		if problems <= 100 {
			fmt.Fprintf(out, "damaged: "+format+"\n", args...)
		}
	}
	s, err := openVerified(engine, 8<<20, log, false)
	if err != nil {
		report("%v", err)
		fmt.Fprintf(out, "%s: damaged; `store-repair` salvages what is readable into a new directory\n", engine)
		return false
	}
	defer s.pdb.Close()
	docs, entries := 0, 0
	for _, dbName := range s.dbNames() {
		d := s.dbs[dbName]
		for _, collName := range d.collNames() {
			c := d.colls[collName]
			n, e, err := checkCollection(c, report)
			if err != nil {
				report("%s: %v", c.ns(), err)
			}
			docs += n
			entries += e
		}
	}
	if err := checkStrayKeys(s, report); err != nil {
		report("%v", err)
	}
	if problems > 100 {
		fmt.Fprintf(out, "... and %d more\n", problems-100)
	}
	if problems > 0 {
		fmt.Fprintf(out, "%s: %d problems; `store-repair` salvages what is readable into a new directory\n", engine, problems)
		return false
	}
	fmt.Fprintf(out, "%s: OK (%d collections, %d documents, %d index entries; every block's checksum verified)\n", engine, countColls(s), docs, entries)
	return true
}

func countColls(s *Store) int {
	n := 0
	for _, d := range s.dbs {
		n += len(d.colls)
	}
	return n
}

// checkCollection reads every document and its expected entries, then every entry.
func checkCollection(c *Collection, report func(string, ...interface{})) (docs, entries int, err error) {
	r := c.store().r()
	err = c.scanDocs(false, func(rec *record) (bool, error) {
		docs++
		if !bytes.Equal(idKeyOf(rec.doc), rec.id) {
			report("%s: document %x is stored under another _id's key", c.ns(), rec.id)
		}
		for _, ix := range c.indexes {
			keys, present := ix.keysOf(rec.doc)
			if ix.primary() || ix.skips(present) {
				continue
			}
			for _, k := range keys.enc {
				v, err := get(r, entryKey(c.entriesPrefix(ix), k, rec.id))
				if err != nil {
					return false, err
				}
				if v == nil {
					report("%s: index %s lacks an entry of document %v", c.ns(), ix.name, bsonkit.Get(rec.doc, "_id"))
				}
			}
		}
		return true, nil
	})
	if err != nil {
		// A document that is not BSON, or a block that does not read.
		return docs, entries, err
	}
	if int64(docs) != c.count {
		report("%s: %d documents where the catalog counts %d", c.ns(), docs, c.count)
	}
	for _, ix := range c.indexes {
		if ix.primary() {
			continue
		}
		n, err := checkEntries(c, ix, report)
		entries += n
		if err != nil {
			return docs, entries, err
		}
	}
	return docs, entries, nil
}

func checkEntries(c *Collection, ix *Index, report func(string, ...interface{})) (int, error) {
	base := c.entriesPrefix(ix)
	upper, _ := successor(base)
	it, err := c.store().r().NewIter(&pebble.IterOptions{LowerBound: base, UpperBound: upper})
	if err != nil {
		return 0, err
	}
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		n++
		key, id := ix.split(it.Key()[len(base):])
		rec, err := c.load(append([]byte(nil), id...))
		if err != nil {
			report("%s: index %s: %v", c.ns(), ix.name, err)
			continue
		}
		if rec == nil {
			report("%s: index %s has an entry for a missing document %x", c.ns(), ix.name, id)
			continue
		}
		keys, _ := ix.keysOf(rec.doc)
		found := false
		for _, k := range keys.enc {
			found = found || bytes.Equal(k, key)
		}
		if !found {
			report("%s: index %s has an entry %x its document %v does not have", c.ns(), ix.name, key, bsonkit.Get(rec.doc, "_id"))
		}
	}
	return n, errors.Join(it.Error(), it.Close())
}

// checkStrayKeys finds keys no catalog entry accounts for (a collection's data without its entry,
// or an index's entries without its spec).
func checkStrayKeys(s *Store, report func(string, ...interface{})) error {
	it, err := s.pdb.NewIter(&pebble.IterOptions{LowerBound: []byte{1}})
	if err != nil {
		return err
	}
	var last []byte
	for ok := it.First(); ok; ok = it.Next() {
		k := it.Key()
		if last != nil && bytes.HasPrefix(k, last) {
			continue
		}
		db, coll, rest, valid := splitDataKey(k)
		c := (*Collection)(nil)
		if d := s.dbs[db]; d != nil {
			c = d.colls[coll]
		}
		switch {
		case !valid:
			report("a key of no collection: %q", k)
			last = append([]byte(nil), k...)
		case c == nil:
			report("data of %s.%s, which the catalog does not list", db, coll)
			last = collPrefix(db, coll)
		case rest[0] == 'i':
			name := rest[1:]
			if i := bytes.IndexByte(name, 0); i >= 0 && c.index(string(name[:i])) == nil {
				report("%s: entries of an index %q the catalog does not list", c.ns(), name[:i])
				last = append(append([]byte{}, c.prefix...), rest[:i+2]...)
			}
		}
	}
	return errors.Join(it.Error(), it.Close())
}

// splitDataKey reads <db> 0x00 <coll> 0x00 <kind> ... into its parts.
func splitDataKey(k []byte) (db, coll string, rest []byte, ok bool) {
	i := bytes.IndexByte(k, 0)
	if i <= 0 {
		return "", "", nil, false
	}
	j := bytes.IndexByte(k[i+1:], 0)
	if j <= 0 || i+1+j+1 >= len(k) {
		return "", "", nil, false
	}
	rest = k[i+1+j+1:]
	return string(k[:i]), string(k[i+1 : i+1+j]), rest, rest[0] == 'd' || rest[0] == 'i'
}
