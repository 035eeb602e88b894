package main

import (
	"math"
	"strings"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
)

// find: the query planned (plan.go), its index ranges walked (scan.go), every candidate matched
// against the whole filter, then sorted (unless the index gave the order), skipped and limited.

type findOpts struct {
	filter bsonkit.Doc
	sort   bsonkit.Doc
	skip   int
	limit  int         // 0: no limit
	hint   interface{} // an index name or key pattern: the query uses that index (nil: planned)
	// keep: the top-level fields the answer keeps of each document (a simple inclusion
	// projection's, and _id with keepID), nil for whole documents (fieldsOf).
	keep   map[string]struct{}
	keepID bool
}

// find returns the records matching the filter, sorted, skipped and limited.
func (c *Collection) find(o findOpts) ([]*record, error) {
	conds := map[string]*cond{}
	analyze(o.filter, conds)
	p := c.plan(conds, o.sort)
	if o.hint != nil {
		ix, err := c.hinted(o.hint)
		if err != nil {
			return nil, err
		}
		p = planIndex(ix, conds, o.sort)
	}
	fields := fieldsOf(o)
	if p != nil {
		p.fields = fields
	}
	want := math.MaxInt
	if o.limit > 0 {
		want = o.skip + o.limit
	}
	var out []*record
	var matchErr error
	visit := func(r *record) bool {
		ok, err := mongokit.Match(r.doc, o.filter)
		if err != nil {
			matchErr = cmdError(2, "BadValue", err.Error())
			return false
		}
		if ok {
			out = append(out, r)
		}
		return true
	}
	var scanErr error
	hasSort := o.sort != nil && len(*o.sort) > 0
	natural, naturalDesc := isNaturalSort(o.sort)
	var branches []branchPlan
	if o.hint == nil {
		branches = c.orPlans(o.filter, conds, p)
	}
	if branches != nil && !natural {
		// Each branch of the $or from its own index, as MongoDB's OR plan; no index order then.
		p = &plan{}
		seen := map[string]struct{}{}
		for _, b := range branches {
			b.plan.fields = fields
			scanErr = c.scan(b.plan, b.conds, func(r *record) bool {
				if _, dup := seen[string(r.id)]; dup {
					return true
				}
				seen[string(r.id)] = struct{}{}
				return visit(r)
			})
			if scanErr != nil || matchErr != nil {
				break
			}
		}
	} else if p == nil || (natural && o.hint == nil) {
		// Natural order is the documents' key order: _id order (MongoDB promises none).
		scanErr = c.scanDocFields(naturalDesc, fields, func(r *record) (bool, error) {
			return visit(r) && (hasSort && !natural || len(out) < want), nil
		})
	} else {
		stopEarly := p.ordered
		scanErr = c.scan(p, conds, func(r *record) bool {
			return visit(r) && (!stopEarly || len(out) < want)
		})
	}
	if matchErr != nil {
		return nil, matchErr
	}
	if scanErr != nil {
		return nil, scanErr
	}
	if hasSort && !natural && (p == nil || !p.ordered) {
		docs := make(bsonkit.List, len(out))
		pos := make(map[bsonkit.Doc]*record, len(out))
		for i, r := range out {
			docs[i] = r.doc
			pos[r.doc] = r
		}
		sorted, err := mongokit.Sort(docs, o.sort)
		if err != nil {
			return nil, cmdError(2, "BadValue", err.Error())
		}
		for i, d := range sorted {
			out[i] = pos[d]
		}
	}
	if o.skip > 0 {
		if o.skip >= len(out) {
			return nil, nil
		}
		out = out[o.skip:]
	}
	if o.limit > 0 && len(out) > o.limit {
		out = out[:o.limit]
	}
	return out, nil
}

// fieldsOf gives what a find needs of each document: the fields the filter and the sort read (and
// _id), to decode, and those the answer keeps. Nil (every document decoded whole) when the
// caller keeps whole documents, or when the filter has an operator that may read any field
// ($expr, $where, ...).
func fieldsOf(o findOpts) *fieldSel {
	if o.keep == nil {
		return nil
	}
	decode := map[string]struct{}{"_id": {}}
	if !filterFields(*o.filter, decode) {
		return nil
	}
	if o.sort != nil {
		for _, e := range *o.sort {
			decode[topLevel(e.Key)] = struct{}{}
		}
	}
	return &fieldSel{decode: decode, keep: o.keep, keepID: o.keepID}
}

// filterFields adds the top-level fields a filter reads to out; false if it cannot tell.
func filterFields(filter bson.D, out map[string]struct{}) bool {
	for _, e := range filter {
		switch e.Key {
		case "$and", "$or", "$nor":
			list, ok := e.Value.(bson.A)
			if !ok {
				return false
			}
			for _, item := range list {
				sub, ok := item.(bson.D)
				if !ok || !filterFields(sub, out) {
					return false
				}
			}
		case "$comment":
		default:
			if strings.HasPrefix(e.Key, "$") {
				return false
			}
			out[topLevel(e.Key)] = struct{}{}
		}
	}
	return true
}

// topLevel is a path's first field ("a" of "a.b.c").
func topLevel(path string) string {
	if i := strings.IndexByte(path, '.'); i >= 0 {
		return path[:i]
	}
	return path
}

func isNaturalSort(sort bsonkit.Doc) (natural, desc bool) {
	if sort == nil || len(*sort) == 0 || (*sort)[0].Key != "$natural" {
		return false, false
	}
	n, _ := number((*sort)[0].Value)
	return true, n < 0
}
