package main

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// The walk of a plan's index ranges (scan) and of a collection's documents (scanDocs), on Pebble
// iterators.

const maxRanges = 50_000

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
		r, err := c.loadFields(prefix, p.fields)
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
			r, visitErr = decodeRecordFields(append([]byte(nil), id...), append([]byte(nil), it.Value()...), p.fields)
		} else {
			r, visitErr = c.loadFields(append([]byte(nil), id...), p.fields)
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
	return c.scanDocFields(reverse, nil, fn)
}

// scanDocFields is scanDocs with each document read as `fields` asks (nil: decoded whole).
func (c *Collection) scanDocFields(reverse bool, fields *fieldSel, fn func(*record) (bool, error)) error {
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
		r, fnErr = decodeRecordFields(append([]byte(nil), it.Key()[len(lower):]...), append([]byte(nil), it.Value()...), fields)
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
