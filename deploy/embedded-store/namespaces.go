package main

import (
	"fmt"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
)

// The commands on databases, collections and their indexes: list, create, drop, collStats.

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
