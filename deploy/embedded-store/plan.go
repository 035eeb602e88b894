package main

import (
	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// The query planner. Like MongoDB, it serves a query from the index whose leading fields the
// filter pins by equality (or $in), then one range field, and returns documents in index order
// when the sort follows the index after those fields, so a limit stops the scan early. Every
// candidate is still checked against the whole filter, so an index only ever narrows the scan.

// cond is what a filter says of one field that an index can use.
type cond struct {
	eq       []interface{} // equality values ($eq, or $in); nil when none
	hasEq    bool
	lo, hi   interface{}
	loInc    bool
	hiInc    bool
	hasRange bool
}

func analyze(filter bsonkit.Doc, conds map[string]*cond) {
	for _, e := range *filter {
		if e.Key == "$and" {
			if arr, ok := e.Value.(bson.A); ok {
				for _, item := range arr {
					if d, ok := item.(bson.D); ok {
						analyze(&d, conds)
					}
				}
			}
			continue
		}
		if len(e.Key) > 0 && e.Key[0] == '$' {
			continue
		}
		c := conds[e.Key]
		if c == nil {
			c = &cond{}
		}
		if ops, ok := e.Value.(bson.D); ok && len(ops) > 0 && len(ops[0].Key) > 0 && ops[0].Key[0] == '$' {
			for _, op := range ops {
				switch op.Key {
				case "$eq":
					if !c.hasEq && indexable(op.Value) {
						c.eq, c.hasEq = []interface{}{op.Value}, true
					}
				case "$in":
					arr, ok := op.Value.(bson.A)
					if set, isSet := op.Value.(*inSet); isSet {
						arr, ok = set.values, true
					}
					if !ok || c.hasEq {
						break
					}
					usable := true
					for _, v := range arr {
						usable = usable && indexable(v)
					}
					if usable {
						c.eq, c.hasEq = uniqueValues(arr), true
					}
				case "$gt", "$gte":
					if !isArray(op.Value) && c.lo == nil {
						c.lo, c.loInc, c.hasRange = op.Value, op.Key == "$gte", true
					}
				case "$lt", "$lte":
					if !isArray(op.Value) && c.hi == nil {
						c.hi, c.hiInc, c.hasRange = op.Value, op.Key == "$lte", true
					}
				}
			}
		} else if !c.hasEq && indexable(e.Value) {
			c.eq, c.hasEq = []interface{}{e.Value}, true
		}
		conds[e.Key] = c
	}
}

// indexable: an equality value an index lookup finds exactly (an array or a regular expression
// matches in other ways).
func indexable(v interface{}) bool {
	switch v.(type) {
	case bson.A, primitive.Regex:
		return false
	}
	return true
}

type plan struct {
	ix      *Index
	eqN     int  // leading fields pinned by equality
	rng     bool // the next field has a range
	ordered bool // index order gives the requested sort
	reverse bool // walk the index backwards
	score   int
	// fields: what to decode and keep of each document (nil: all of it, decoded), set by find.
	fields *fieldSel
}

func (c *Collection) plan(conds map[string]*cond, sort bsonkit.Doc) *plan {
	var best *plan
	hasSort := sort != nil && len(*sort) > 0
	for _, ix := range c.indexes {
		p := planIndex(ix, conds, sort)
		if p.eqN == 0 && !p.rng && !(p.ordered && hasSort) {
			continue
		}
		if best == nil || p.score > best.score {
			best = p
		}
	}
	return best
}

// planIndex is how one index serves the conditions and the sort, and how well (score).
func planIndex(ix *Index, conds map[string]*cond, sort bsonkit.Doc) *plan {
	p := &plan{ix: ix}
	multiValue := false
	for _, f := range ix.fields {
		cd := conds[f.path]
		if cd == nil || !cd.hasEq {
			break
		}
		multiValue = multiValue || len(cd.eq) > 1
		p.eqN++
	}
	if p.eqN < len(ix.fields) {
		if cd := conds[ix.fields[p.eqN].path]; cd != nil && cd.hasRange {
			p.rng = true
		}
	}
	p.ordered, p.reverse = sortFollows(ix, p.eqN, conds, sort, multiValue)
	p.score = p.eqN * 10
	if p.rng {
		p.score += 5
	}
	if p.ordered && sort != nil && len(*sort) > 0 {
		p.score += 3
	}
	return p
}

// hinted is the index a query's hint names, by name or by key pattern, as MongoDB's hint.
func (c *Collection) hinted(hint interface{}) (*Index, error) {
	switch h := hint.(type) {
	case string:
		if ix := c.index(h); ix != nil {
			return ix, nil
		}
	case bson.D:
		for _, ix := range c.indexes {
			if sameKeys(ix.keySpec, h) {
				return ix, nil
			}
		}
	}
	return nil, cmdError(2, "BadValue", "hint provided does not correspond to an existing index")
}

func sameKeys(a, b bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, okX := number(a[i].Value)
		y, okY := number(b[i].Value)
		if a[i].Key != b[i].Key || !okX || !okY || (x < 0) != (y < 0) {
			return false
		}
	}
	return true
}

// sortFollows reports whether walking the index after its equality prefix yields the sort order,
// forwards or backwards.
func sortFollows(ix *Index, eqN int, conds map[string]*cond, sort bsonkit.Doc, multiValue bool) (ordered, reverse bool) {
	if sort == nil || len(*sort) == 0 {
		return true, false
	}
	var rest bson.D
	for _, s := range *sort {
		if cd := conds[s.Key]; cd != nil && cd.hasEq && len(cd.eq) == 1 {
			continue // a field pinned to one value does not change the order
		}
		rest = append(rest, s)
	}
	if len(rest) == 0 {
		return true, false
	}
	if multiValue || eqN+len(rest) > len(ix.fields) {
		return false, false
	}
	for i, s := range rest {
		f := ix.fields[eqN+i]
		n, ok := number(s.Value)
		if !ok || f.path != s.Key || (ix.multi && f.path != "_id" && !ix.isID()) {
			return false, false
		}
		flipped := (n < 0) != f.desc
		if i == 0 {
			reverse = flipped
		} else if flipped != reverse {
			return false, false
		}
	}
	return true, reverse
}

type branchPlan struct {
	plan  *plan
	conds map[string]*cond
}

// orPlans plans each branch of the filter's first $or (at the top or in a top-level $and), with
// the conditions beside the $or, when every branch can use an index at least as well as the
// best plan for the whole filter. It returns nil otherwise.
func (c *Collection) orPlans(filter bsonkit.Doc, conds map[string]*cond, top *plan) []branchPlan {
	or := firstOr(*filter)
	if or == nil {
		return nil
	}
	var out []branchPlan
	for _, item := range or {
		branch, isDoc := item.(bson.D)
		if !isDoc {
			return nil
		}
		bc := make(map[string]*cond, len(conds))
		for k, v := range conds {
			cp := *v
			bc[k] = &cp
		}
		analyze(&branch, bc)
		bp := c.plan(bc, nil)
		if bp == nil || (bp.eqN == 0 && !bp.rng) || (top != nil && bp.score < top.score-3) {
			return nil
		}
		out = append(out, branchPlan{plan: bp, conds: bc})
	}
	return out
}

func firstOr(filter bson.D) bson.A {
	for _, e := range filter {
		switch e.Key {
		case "$or":
			arr, _ := e.Value.(bson.A)
			return arr
		case "$and":
			arr, _ := e.Value.(bson.A)
			for _, item := range arr {
				if d, isDoc := item.(bson.D); isDoc {
					if or := firstOr(d); or != nil {
						return or
					}
				}
			}
		}
	}
	return nil
}
