package main

import (
	"fmt"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"github.com/tidwall/btree"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// record is one stored document. Documents are never changed in place: an update stores a new
// record value, so a document handed to a reply stays as it was read.
type record struct {
	seq uint64 // insertion order: MongoDB's natural order
	doc bsonkit.Doc
}

// Collection holds its documents in memory, in insertion order, with its indexes. The store's
// lock guards it.
type Collection struct {
	db      *Database
	name    string
	natural *btree.BTreeG[*record]
	byID    map[string]*record
	indexes []*Index
}

func newCollection(db *Database, name string) *Collection {
	c := &Collection{
		db:      db,
		name:    name,
		natural: btree.NewBTreeGOptions(func(a, b *record) bool { return a.seq < b.seq }, btree.Options{NoLocks: true}),
		byID:    map[string]*record{},
	}
	id, _ := newIndex(bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: "_id_"}})
	id.unique = true
	c.indexes = []*Index{id}
	return c
}

func (c *Collection) ns() string { return c.db.name + "." + c.name }

func (c *Collection) index(name string) *Index {
	for _, ix := range c.indexes {
		if ix.name == name {
			return ix
		}
	}
	return nil
}

// insert adds a new document (with an _id) after checking every unique index.
func (c *Collection) insert(doc bsonkit.Doc) error {
	if bsonkit.Get(doc, "_id") == bsonkit.Missing {
		*doc = append(bson.D{{Key: "_id", Value: primitive.NewObjectID()}}, *doc...)
	}
	id := bsonkit.Get(doc, "_id")
	if isArray(id) {
		return cmdError(2, "BadValue", "can't use an array for _id")
	}
	r := &record{seq: c.db.store.nextSeq(), doc: doc}
	var keys []keySet
	if !c.db.store.loading {
		var err error
		if keys, err = c.checkUnique(doc, r); err != nil {
			return err
		}
	}
	c.link(r, keys)
	c.db.store.journal.put(c, doc)
	return nil
}

// checkUnique computes the document's keys in every index and refuses a duplicate in a unique one.
func (c *Collection) checkUnique(doc bsonkit.Doc, self *record) ([]keySet, error) {
	all := make([]keySet, len(c.indexes))
	for i, ix := range c.indexes {
		keys, present := ix.keysOf(doc)
		if ix.skips(present) {
			continue
		}
		if other, key := ix.conflict(keys, self); other != nil {
			return nil, ix.dupKeyError(c.ns(), key)
		}
		all[i] = keys
	}
	return all, nil
}

// link adds a record to the collection and to its indexes, with its keys in each (none while
// the journal loads: the indexes are built once it has).
func (c *Collection) link(r *record, keys []keySet) {
	c.db.store.intern(r.doc)
	for i, ix := range c.indexes {
		if keys != nil && keys[i].enc != nil {
			ix.add(keys[i], r)
		}
	}
	c.natural.Set(r)
	c.byID[idKey(bsonkit.Get(r.doc, "_id"))] = r
}

func (c *Collection) unlink(r *record) {
	for _, ix := range c.indexes {
		if c.db.store.loading {
			break
		}
		keys, present := ix.keysOf(r.doc)
		if !ix.skips(present) {
			ix.remove(keys, r)
		}
	}
	c.natural.Delete(r)
	delete(c.byID, idKey(bsonkit.Get(r.doc, "_id")))
}

// replace stores a new version of a document, keeping its place in the natural order.
func (c *Collection) replace(old *record, doc bsonkit.Doc) error {
	if bsonkit.Compare(bsonkit.Get(old.doc, "_id"), bsonkit.Get(doc, "_id")) != 0 {
		return cmdError(66, "ImmutableField", "Performing an update on the path '_id' would modify the immutable field '_id'")
	}
	r := &record{seq: old.seq, doc: doc}
	// Check unique indexes against everything but the old version of this document.
	var all []keySet
	if !c.db.store.loading {
		all = make([]keySet, len(c.indexes))
	}
	for i, ix := range c.indexes {
		if all == nil {
			break
		}
		keys, present := ix.keysOf(doc)
		if ix.skips(present) {
			continue
		}
		if other, key := ix.conflict(keys, old); other != nil && other != old {
			return ix.dupKeyError(c.ns(), key)
		}
		all[i] = keys
	}
	c.unlink(old)
	c.link(r, all)
	c.db.store.journal.put(c, doc)
	return nil
}

func (c *Collection) delete(r *record) {
	c.unlink(r)
	c.db.store.journal.del(c, bsonkit.Get(r.doc, "_id"))
}

// createIndex adds an index and builds it, or does nothing when an equal one exists.
func (c *Collection) createIndex(spec bson.D, journal bool) (bool, error) {
	ix, err := newIndex(spec)
	if err != nil {
		return false, err
	}
	for _, other := range c.indexes {
		sameKey := bsonkit.Compare(other.keySpec, ix.keySpec) == 0
		if other.name == ix.name || sameKey {
			if sameKey && other.name == ix.name && other.unique == ix.unique && other.sparse == ix.sparse {
				return false, nil
			}
			if other.name == ix.name {
				return false, cmdError(86, "IndexKeySpecsConflict", fmt.Sprintf("An existing index has the same name as the requested index but different options: %s", ix.name))
			}
			return false, cmdError(85, "IndexOptionsConflict", fmt.Sprintf("Index already exists with a different name: %s", other.name))
		}
	}
	if !c.db.store.loading {
		if err := ix.build(c); err != nil {
			return false, err
		}
	}
	c.indexes = append(c.indexes, ix)
	if journal {
		c.db.store.journal.index(c, spec)
	}
	return true, nil
}

func (c *Collection) dropIndex(name string) error {
	for i, ix := range c.indexes {
		if ix.name == name {
			if ix.isID() {
				return cmdError(72, "InvalidOptions", "cannot drop _id index")
			}
			c.indexes = append(c.indexes[:i], c.indexes[i+1:]...)
			c.db.store.journal.dropIndex(c, name)
			return nil
		}
	}
	return cmdError(27, "IndexNotFound", fmt.Sprintf("index not found with name [%s]", name))
}

// update applies an update document (operators, or a replacement) to a copy of the record's
// document and stores it; it reports whether the document changed.
func (c *Collection) update(r *record, query, update bsonkit.Doc, arrayFilters bsonkit.List) (bsonkit.Doc, bool, error) {
	doc := bsonkit.Clone(r.doc)
	if isOperatorUpdate(update) {
		if _, err := mongokit.Apply(doc, query, update, false, arrayFilters); err != nil {
			return nil, false, cmdError(9, "FailedToParse", err.Error())
		}
	} else {
		doc = replacement(r.doc, update)
	}
	if bsonkit.Compare(*doc, *r.doc) == 0 {
		return r.doc, false, nil
	}
	if err := c.replace(r, doc); err != nil {
		return nil, false, err
	}
	return doc, true, nil
}

// upsert inserts the document an update with upsert:true creates when nothing matched.
func (c *Collection) upsert(query, update bsonkit.Doc, arrayFilters bsonkit.List) (bsonkit.Doc, error) {
	var doc bsonkit.Doc
	if isOperatorUpdate(update) {
		base, err := mongokit.Extract(query)
		if err != nil {
			return nil, cmdError(2, "BadValue", err.Error())
		}
		doc = base
		if _, err := mongokit.Apply(doc, query, update, true, arrayFilters); err != nil {
			return nil, cmdError(9, "FailedToParse", err.Error())
		}
	} else {
		doc = bsonkit.Clone(update)
		if id := bsonkit.Get(doc, "_id"); id == bsonkit.Missing {
			if base, err := mongokit.Extract(query); err == nil {
				if qid := bsonkit.Get(base, "_id"); qid != bsonkit.Missing {
					*doc = append(bson.D{{Key: "_id", Value: qid}}, *doc...)
				}
			}
		}
	}
	if bsonkit.Get(doc, "_id") == bsonkit.Missing {
		*doc = append(bson.D{{Key: "_id", Value: primitive.NewObjectID()}}, *doc...)
	} else {
		moveIDFirst(doc)
	}
	if err := c.insert(doc); err != nil {
		return nil, err
	}
	return doc, nil
}

func isOperatorUpdate(update bsonkit.Doc) bool {
	return len(*update) > 0 && len((*update)[0].Key) > 0 && (*update)[0].Key[0] == '$'
}

func replacement(old, repl bsonkit.Doc) bsonkit.Doc {
	doc := bson.D{{Key: "_id", Value: bsonkit.Get(old, "_id")}}
	for _, e := range *bsonkit.Clone(repl) {
		if e.Key == "_id" {
			doc[0].Value = e.Value
			continue
		}
		doc = append(doc, e)
	}
	return &doc
}

func moveIDFirst(doc bsonkit.Doc) {
	for i, e := range *doc {
		if e.Key == "_id" {
			if i > 0 {
				d := append(bson.D{e}, (*doc)[:i]...)
				*doc = append(d, (*doc)[i+1:]...)
			}
			return
		}
	}
}
