package main

import (
	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
)

// Write commands. Each runs under the store's exclusive lock, so a statement's read and write
// are one step; an ordered batch stops at its first error, an unordered one goes on, as MongoDB.

func statements(cmd bson.D, key string) ([]bson.D, error) {
	arr, isArr := field(cmd, key).(bson.A)
	if !isArr {
		return nil, cmdError(9, "FailedToParse", key+" must be an array")
	}
	out := make([]bson.D, len(arr))
	for i, v := range arr {
		d, isDoc := v.(bson.D)
		if !isDoc {
			return nil, cmdError(14, "TypeMismatch", key+" must hold documents")
		}
		out[i] = d
	}
	return out, nil
}

func ordered(cmd bson.D) bool {
	v := field(cmd, "ordered")
	return v == nil || truthy(v)
}

// writeResult collects a batch's counts and errors.
type writeResult struct {
	n, modified int
	upserted    bson.A
	errors      bson.A
}

func (w *writeResult) fail(i int, err error) {
	ce, isCmd := err.(*CommandError)
	if !isCmd {
		ce = cmdError(8, "UnknownError", err.Error())
	}
	w.errors = append(w.errors, ce.writeError(i))
}

func (w *writeResult) reply(withModified bool) bson.D {
	d := bson.D{{Key: "n", Value: int32(w.n)}}
	if withModified {
		d = append(d, bson.E{Key: "nModified", Value: int32(w.modified)})
	}
	if len(w.upserted) > 0 {
		d = append(d, bson.E{Key: "upserted", Value: w.upserted})
	}
	if len(w.errors) > 0 {
		d = append(d, bson.E{Key: "writeErrors", Value: w.errors})
	}
	return d
}

// batch runs a write command's statements in order; an ordered batch stops at the first error.
func (w *writeResult) batch(cmd bson.D, n int, run func(i int) error) {
	for i := 0; i < n; i++ {
		if err := run(i); err != nil {
			w.fail(i, err)
			if ordered(cmd) {
				return
			}
		}
	}
}

// writeBatch runs a write command: each statement under key, in order, against the command's
// collection (created first when create is set; a delete from a missing one deletes nothing).
func (s *Server) writeBatch(db string, cmd bson.D, key string, create bool, run func(c *Collection, i int, st bson.D, w *writeResult) error) (bson.D, error) {
	stmts, err := statements(cmd, key)
	if err != nil {
		return nil, err
	}
	return s.write(func() (bson.D, error) {
		c, _, err := s.collection(db, cmd, create)
		if err != nil {
			return nil, err
		}
		var w writeResult
		if c != nil {
			w.batch(cmd, len(stmts), func(i int) error { return run(c, i, stmts[i], &w) })
		}
		return w.reply(key == "updates"), nil
	})
}

func cmdInsert(s *Server, db string, cmd bson.D) (bson.D, error) {
	return s.writeBatch(db, cmd, "documents", true, func(c *Collection, _ int, doc bson.D, w *writeResult) error {
		moveIDFirst(&doc)
		if err := c.insert(&doc); err != nil {
			return err
		}
		w.n++
		return nil
	})
}

func cmdUpdate(s *Server, db string, cmd bson.D) (bson.D, error) {
	return s.writeBatch(db, cmd, "updates", true, (*Collection).updateStatement)
}

func cmdDelete(s *Server, db string, cmd bson.D) (bson.D, error) {
	return s.writeBatch(db, cmd, "deletes", false, func(c *Collection, _ int, st bson.D, w *writeResult) error {
		q, err := docField(st, "q")
		if err != nil {
			return err
		}
		if q == nil {
			q = &bson.D{}
		}
		if q, err = prepareFilter(q); err != nil {
			return err
		}
		found, err := c.find(findOpts{filter: q, limit: intOf(field(st, "limit"))})
		if err != nil {
			return err
		}
		for _, r := range found {
			if err := c.delete(r); err != nil {
				return err
			}
			w.n++
		}
		return nil
	})
}

func (c *Collection) updateStatement(i int, st bson.D, w *writeResult) error {
	q, err := docField(st, "q")
	if err != nil {
		return err
	}
	if q == nil {
		q = &bson.D{}
	}
	if q, err = prepareFilter(q); err != nil {
		return err
	}
	u, err := docField(st, "u")
	if err != nil {
		return cmdError(9, "FailedToParse", "the embedded store does not run update pipelines; u must be a document")
	}
	if u == nil {
		return cmdError(9, "FailedToParse", "update statement has no u")
	}
	arrayFilters, err := arrayFiltersOf(st)
	if err != nil {
		return err
	}
	limit := 1
	if truthy(field(st, "multi")) {
		if !isOperatorUpdate(u) {
			return cmdError(9, "FailedToParse", "multi update is not supported for replacement-style update")
		}
		limit = 0
	}
	found, err := c.find(findOpts{filter: q, limit: limit})
	if err != nil {
		return err
	}
	if len(found) == 0 && truthy(field(st, "upsert")) {
		doc, err := c.upsert(q, u, arrayFilters)
		if err != nil {
			return err
		}
		w.n++
		w.upserted = append(w.upserted, bson.D{{Key: "index", Value: int32(i)}, {Key: "_id", Value: bsonkit.Get(doc, "_id")}})
		return nil
	}
	for _, r := range found {
		_, changed, err := c.update(r, q, u, arrayFilters)
		if err != nil {
			return err
		}
		w.n++
		if changed {
			w.modified++
		}
	}
	return nil
}

func arrayFiltersOf(st bson.D) (bsonkit.List, error) {
	v := field(st, "arrayFilters")
	if v == nil {
		return nil, nil
	}
	arr, isArr := v.(bson.A)
	if !isArr {
		return nil, cmdError(14, "TypeMismatch", "arrayFilters must be an array")
	}
	list := make(bsonkit.List, 0, len(arr))
	for _, f := range arr {
		d, isDoc := f.(bson.D)
		if !isDoc {
			return nil, cmdError(14, "TypeMismatch", "arrayFilters must hold documents")
		}
		list = append(list, &d)
	}
	return list, nil
}

func cmdFindAndModify(s *Server, db string, cmd bson.D) (bson.D, error) {
	o, err := parseFind(cmd, "query")
	if err != nil {
		return nil, err
	}
	o.limit, o.skip = 1, 0
	update, err := docField(cmd, "update")
	if err != nil {
		return nil, cmdError(9, "FailedToParse", "the embedded store does not run update pipelines; update must be a document")
	}
	remove := truthy(field(cmd, "remove"))
	if (update == nil) == !remove {
		return nil, cmdError(9, "FailedToParse", "Either an update or remove=true must be specified")
	}
	fields, err := docField(cmd, "fields")
	if err != nil {
		return nil, err
	}
	returnNew := truthy(field(cmd, "new"))
	upsert := truthy(field(cmd, "upsert"))
	arrayFilters, err := arrayFiltersOf(cmd)
	if err != nil {
		return nil, err
	}
	return s.write(func() (bson.D, error) {
		c, _, err := s.collection(db, cmd, true)
		if err != nil {
			return nil, err
		}
		found, err := c.find(o)
		if err != nil {
			return nil, err
		}
		last := bson.D{{Key: "n", Value: int32(0)}}
		var value bsonkit.Doc
		switch {
		case len(found) == 0 && upsert && !remove:
			doc, err := c.upsert(o.filter, update, arrayFilters)
			if err != nil {
				return nil, err
			}
			last = bson.D{{Key: "n", Value: int32(1)}, {Key: "updatedExisting", Value: false}, {Key: "upserted", Value: bsonkit.Get(doc, "_id")}}
			if returnNew {
				value = doc
			}
		case len(found) == 0:
			if !remove {
				last = append(last, bson.E{Key: "updatedExisting", Value: false})
			}
		case remove:
			if err := c.delete(found[0]); err != nil {
				return nil, err
			}
			value = found[0].doc
			last = bson.D{{Key: "n", Value: int32(1)}}
		default:
			doc, _, err := c.update(found[0], o.filter, update, arrayFilters)
			if err != nil {
				return nil, err
			}
			value = found[0].doc
			if returnNew {
				value = doc
			}
			last = bson.D{{Key: "n", Value: int32(1)}, {Key: "updatedExisting", Value: true}}
		}
		var out interface{}
		if value != nil {
			if fields != nil && len(*fields) > 0 {
				if value, err = mongokit.Project(value, fields); err != nil {
					return nil, cmdError(2, "BadValue", err.Error())
				}
			}
			out = *value
		}
		return bson.D{{Key: "lastErrorObject", Value: last}, {Key: "value", Value: out}}, nil
	})
}
