package main

import (
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
)

// count and distinct.

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
