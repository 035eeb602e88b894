package main

import "go.mongodb.org/mongo-driver/bson"

// find and its cursors (getMore, killCursors), and the query options every find-like command
// reads (parseFind); the query itself is query.go's.

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

func cmdFind(s *Server, db string, cmd bson.D) (bson.D, error) {
	o, err := parseFind(cmd, "filter")
	if err != nil {
		return nil, err
	}
	projection, err := docField(cmd, "projection")
	if err != nil {
		return nil, err
	}
	// A projection naming the fields to keep: those are copied as stored, only what the query
	// reads is decoded.
	if projection != nil {
		if fields, keepID, ok := simpleInclusion(*projection); ok {
			o.keep, o.keepID = fields, keepID
		}
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
