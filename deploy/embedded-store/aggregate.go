package main

import (
	"fmt"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
)

// aggregate: the leading $match, $sort, $skip and $limit stages run as the query (so it can use
// an index), the later stages in memory one by one ($group: group.go).

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
