package main

import (
	"bytes"
	"errors"
	"fmt"
	"math"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"github.com/cockroachdb/pebble/v2"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// The query planner. Like MongoDB, it serves a query from the index whose leading fields the
// filter pins by equality (or $in), then one range field, and returns documents in index order
// when the sort follows the index after those fields, so a limit stops the scan early. Every
// candidate is still checked against the whole filter, so an index only ever narrows the scan.

type findOpts struct {
	filter bsonkit.Doc
	sort   bsonkit.Doc
	skip   int
	limit  int         // 0: no limit
	hint   interface{} // an index name or key pattern: the query uses that index (nil: planned)
}

// cond is what a filter says of one field that an index can use.
type cond struct {
	eq       []interface{} // equality values ($eq, or $in); nil when none
	hasEq    bool
	lo, hi   interface{}
	loInc    bool
	hiInc    bool
	hasRange bool
}

const maxRanges = 50_000

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
		scanErr = c.scanDocs(naturalDesc, func(r *record) (bool, error) {
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

func isNaturalSort(sort bsonkit.Doc) (natural, desc bool) {
	if sort == nil || len(*sort) == 0 || (*sort)[0].Key != "$natural" {
		return false, false
	}
	n, _ := number((*sort)[0].Value)
	return true, n < 0
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

// scan walks the plan's index ranges and calls visit for each distinct record until it says stop.
func (c *Collection) scan(p *plan, conds map[string]*cond, visit func(*record) bool) error {
	fields := p.ix.fields
	prefixes := [][]interface{}{{}}
	for i := 0; i < p.eqN; i++ {
		values := conds[fields[i].path].eq
		if len(prefixes)*len(values) > maxRanges {
			p.eqN = i
			p.rng = false
			break
		}
		next := make([][]interface{}, 0, len(prefixes)*len(values))
		for _, pre := range prefixes {
			for _, v := range values {
				k := make([]interface{}, len(pre), len(pre)+1)
				copy(k, pre)
				next = append(next, append(k, v))
			}
		}
		prefixes = next
	}
	var rc *cond
	if p.rng {
		rc = conds[fields[p.eqN].path]
	}
	var seen map[string]struct{}
	if p.ix.multi || len(prefixes) > 1 {
		seen = map[string]struct{}{}
	}
	// One iterator for every block (re-bounded for each): creating one per block cost more than
	// the block's reads for a 100-value $in.
	base := c.entriesPrefix(p.ix)
	upper, _ := successor(base)
	it, err := c.store().r().NewIter(&pebble.IterOptions{LowerBound: base, UpperBound: upper})
	if err != nil {
		return err
	}
	for _, pre := range prefixes {
		more, err := c.scanRange(it, p, pre, rc, seen, visit)
		if err != nil || !more {
			return errors.Join(err, it.Close())
		}
	}
	return it.Close()
}

// scanRange walks one block of the index: the entries whose leading keys equal pre, and whose
// next key is within the range, if any, with a Pebble iterator bounded to the block. It returns
// false when visit asked to stop.
func (c *Collection) scanRange(it *pebble.Iterator, p *plan, pre []interface{}, rc *cond, seen map[string]struct{}, visit func(*record) bool) (bool, error) {
	fields := p.ix.fields
	var prefix []byte
	for i, v := range pre {
		prefix = appendKey(prefix, v, fields[i].desc)
	}
	// The range in encoded order: a descending field's encoding runs from its highest value.
	var low, high []byte
	lowInc, highInc, desc := true, true, false
	if rc != nil {
		desc = fields[len(pre)].desc
		lo, hi, loInc, hiInc := rc.lo, rc.hi, rc.loInc, rc.hiInc
		if desc {
			lo, hi, loInc, hiInc = hi, lo, hiInc, loInc
		}
		if lo != nil {
			low, lowInc = appendKey(nil, lo, desc), loInc
		}
		if hi != nil {
			high, highInc = appendKey(nil, hi, desc), hiInc
		}
	}
	base := c.entriesPrefix(p.ix)
	block := append(append([]byte{}, base...), prefix...)
	if p.ix.primary() && rc == nil && len(pre) == 1 {
		// One _id: a point read of its document.
		r, err := c.load(prefix)
		if r == nil || err != nil {
			return err == nil, err
		}
		if seen != nil {
			seen[string(r.id)] = struct{}{}
		}
		return visit(r), nil
	}
	if upper, none := successor(block); none {
		it.SetBounds(block, nil)
	} else {
		it.SetBounds(block, upper)
	}
	forward := !p.reverse
	// Forwards from the block's first key in range; backwards from the last key before the
	// first one after the range.
	var ok bool
	if forward {
		ok = it.SeekGE(append(append([]byte{}, block...), low...))
	} else if end, none := successor(append(append([]byte{}, block...), high...)); high == nil || none {
		ok = it.Last()
	} else {
		ok = it.SeekLT(end)
	}
	cont := true
	var visitErr error
	for ; ok; ok = step(it, forward) {
		key, id := p.ix.split(it.Key()[len(base):])
		if rc != nil {
			rest := key[len(prefix):]
			seg := rest[:keyLen(rest, desc)]
			belowLow := low != nil && (bytes.Compare(seg, low) < 0 || (!lowInc && bytes.Equal(seg, low)))
			aboveHigh := high != nil && (bytes.Compare(seg, high) > 0 || (!highInc && bytes.Equal(seg, high)))
			if (forward && aboveHigh) || (!forward && belowLow) {
				break
			}
			if belowLow || aboveHigh {
				continue
			}
		}
		if seen != nil {
			if _, dup := seen[string(id)]; dup {
				continue
			}
			seen[string(id)] = struct{}{}
		}
		var r *record
		if p.ix.primary() {
			r, visitErr = decodeRecord(append([]byte(nil), id...), append([]byte(nil), it.Value()...))
		} else {
			r, visitErr = c.load(append([]byte(nil), id...))
			if r == nil && visitErr == nil {
				visitErr = fmt.Errorf("%s: index %s has an entry for a missing document %x", c.ns(), p.ix.name, id)
			}
		}
		if visitErr != nil {
			break
		}
		if cont = visit(r); !cont {
			break
		}
	}
	if err := errors.Join(visitErr, it.Error()); err != nil {
		return false, err
	}
	return cont, nil
}

// scanDocs calls fn with each document in _id order (reverse: backwards) until it says stop.
func (c *Collection) scanDocs(reverse bool, fn func(*record) (bool, error)) error {
	lower := c.docsPrefix()
	upper, _ := successor(lower)
	it, err := c.store().r().NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
	if err != nil {
		return err
	}
	ok := it.First()
	if reverse {
		ok = it.Last()
	}
	var fnErr error
	for ; ok; ok = step(it, !reverse) {
		var r *record
		r, fnErr = decodeRecord(append([]byte(nil), it.Key()[len(lower):]...), append([]byte(nil), it.Value()...))
		if fnErr != nil {
			break
		}
		var more bool
		if more, fnErr = fn(r); !more || fnErr != nil {
			break
		}
	}
	return errors.Join(fnErr, it.Error(), it.Close())
}

func step(it *pebble.Iterator, forward bool) bool {
	if forward {
		return it.Next()
	}
	return it.Prev()
}

// successor is the smallest key after every key that starts with b; none (true) when b is empty
// or all 0xFF.
func successor(b []byte) ([]byte, bool) {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xFF {
			out := append([]byte{}, b[:i+1]...)
			out[i]++
			return out, false
		}
	}
	return nil, true
}
