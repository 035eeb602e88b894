package main

import (
	"regexp"
	"strings"
	"sync"

	"github.com/256dpi/lungo/bsonkit"
	"github.com/256dpi/lungo/mongokit"
	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/primitive"
)

// Regular expressions in filters: lungo's matcher has no $regex, so filters are rewritten to one
// form ({field: {$regex: /re/}}, also under $not) and the operator is added here. Patterns run
// on Go's RE2, which covers the anchored prefixes and character classes the services use.

func init() {
	mongokit.ExpressionQueryOperators["$regex"] = matchRegex
}

var regexCache sync.Map // pattern and options -> *regexp.Regexp

func compileRegex(re primitive.Regex) (*regexp.Regexp, error) {
	key := re.Options + "/" + re.Pattern
	if v, found := regexCache.Load(key); found {
		return v.(*regexp.Regexp), nil
	}
	flags := ""
	for _, o := range re.Options {
		switch o {
		case 'i', 'm', 's':
			flags += string(o)
		}
	}
	pattern := re.Pattern
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	compiled, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	regexCache.Store(key, compiled)
	return compiled, nil
}

func matchRegex(_ mongokit.Context, doc bsonkit.Doc, _, path string, v interface{}) error {
	re, isRe := v.(primitive.Regex)
	if !isRe {
		return cmdError(2, "BadValue", "$regex has to be a string")
	}
	compiled, err := compileRegex(re)
	if err != nil {
		return cmdError(51091, "Location51091", "Regular expression is invalid: "+err.Error())
	}
	value, _ := bsonkit.All(doc, path, true, true)
	values := []interface{}{value}
	if arr, isArr := value.(bson.A); isArr {
		values = arr
	}
	for _, item := range values {
		if s, isStr := item.(string); isStr && compiled.MatchString(s) {
			return nil
		}
	}
	return mongokit.ErrNotMatched
}

// prepareFilter returns the filter with every regular expression in the $regex form.
func prepareFilter(filter bsonkit.Doc) (bsonkit.Doc, error) {
	out, err := prepareQuery(*filter)
	if err != nil {
		return nil, err
	}
	return &out, nil
}

func prepareQuery(q bson.D) (bson.D, error) {
	out := make(bson.D, 0, len(q))
	for _, e := range q {
		switch {
		case e.Key == "$and" || e.Key == "$or" || e.Key == "$nor":
			arr, isArr := e.Value.(bson.A)
			if !isArr {
				return nil, cmdError(2, "BadValue", e.Key+" must be an array")
			}
			list := make(bson.A, len(arr))
			for i, item := range arr {
				d, isDoc := item.(bson.D)
				if !isDoc {
					return nil, cmdError(2, "BadValue", e.Key+" argument's entries must be objects")
				}
				p, err := prepareQuery(d)
				if err != nil {
					return nil, err
				}
				list[i] = p
			}
			e.Value = list
		case strings.HasPrefix(e.Key, "$"):
		default:
			v, err := prepareCondition(e.Value)
			if err != nil {
				return nil, err
			}
			e.Value = v
		}
		out = append(out, e)
	}
	return out, nil
}

func prepareCondition(v interface{}) (interface{}, error) {
	switch t := v.(type) {
	case primitive.Regex:
		return bson.D{{Key: "$regex", Value: t}}, nil
	case bson.D:
		if len(t) == 0 || !strings.HasPrefix(t[0].Key, "$") {
			return t, nil
		}
		options := ""
		for _, op := range t {
			if op.Key == "$options" {
				options, _ = op.Value.(string)
			}
		}
		out := make(bson.D, 0, len(t))
		for _, op := range t {
			switch op.Key {
			case "$options":
				continue
			case "$regex":
				switch re := op.Value.(type) {
				case string:
					op.Value = primitive.Regex{Pattern: re, Options: options}
				case primitive.Regex:
					if options != "" {
						re.Options = options
					}
					op.Value = re
				default:
					return nil, cmdError(2, "BadValue", "$regex has to be a string")
				}
			case "$not":
				inner, err := prepareCondition(op.Value)
				if err != nil {
					return nil, err
				}
				op.Value = inner
			case "$elemMatch":
				if d, isDoc := op.Value.(bson.D); isDoc {
					p, err := prepareQuery(d)
					if err != nil {
						return nil, err
					}
					op.Value = p
				}
			case "$in", "$nin":
				if arr, isArr := op.Value.(bson.A); isArr {
					for _, item := range arr {
						if _, isRe := item.(primitive.Regex); isRe {
							return nil, cmdError(2, "BadValue", "the embedded store does not match regular expressions inside "+op.Key)
						}
					}
					if set := newInSet(arr); set != nil {
						op.Value = set
					}
				}
			}
			out = append(out, op)
		}
		return out, nil
	}
	return v, nil
}
