package main

import (
	"fmt"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

// decodeDoc turns BSON bytes into the bson.D form lungo works on (documents as bson.D, arrays as
// bson.A), by walking the bytes directly: several times faster than the driver's reflective
// decoder, which matters for every command and every document read from the engine.
func decodeDoc(raw []byte) (bson.D, error) {
	doc := bsoncore.Document(raw)
	if err := doc.Validate(); err != nil {
		return nil, err
	}
	return decodeElements(doc)
}

// fieldSel is what a find needs of each stored document (fieldsOf): the top-level fields its
// filter and sort read, to decode, and, for a projection naming the fields to keep, those fields,
// copied as they are into the answer's BSON. A message page neither decodes nor re-encodes what
// it shows, and never touches the search stems, most of a message's bytes.
type fieldSel struct {
	decode map[string]struct{}
	keep   map[string]struct{}
	keepID bool
}

// decodeFields decodes a stored document's sel.decode fields, stepping over the others, and gives
// the document of its sel.keep fields (and _id with keepID), in the stored order, as BSON.
func decodeFields(raw []byte, sel *fieldSel) (bson.D, []byte, error) {
	length, rest, ok := bsoncore.ReadLength(raw)
	if !ok || length < 5 || int(length) > len(raw) || raw[length-1] != 0 {
		return nil, nil, bsoncore.NewInsufficientBytesError(raw, raw)
	}
	rest = rest[:length-5]
	doc := make(bson.D, 0, len(sel.decode))
	start, kept := bsoncore.AppendDocumentStart(make([]byte, 0, len(raw)))
	for len(rest) > 0 {
		elem, after, ok := bsoncore.ReadElement(rest)
		if !ok {
			return nil, nil, bsoncore.NewInsufficientBytesError(raw, rest)
		}
		rest = after
		key := elem.KeyBytes()
		_, decode := sel.decode[string(key)]
		_, keep := sel.keep[string(key)]
		keep = keep || (sel.keepID && string(key) == "_id")
		if !decode && !keep {
			continue
		}
		if err := elem.Validate(); err != nil {
			return nil, nil, err
		}
		if keep {
			kept = append(kept, elem...)
		}
		if decode {
			v, err := decodeValue(elem.Value())
			if err != nil {
				return nil, nil, err
			}
			doc = append(doc, bson.E{Key: elem.Key(), Value: v})
		}
	}
	kept, err := bsoncore.AppendDocumentEnd(kept, start)
	if err != nil {
		return nil, nil, err
	}
	return doc, kept, nil
}

func decodeElements(doc bsoncore.Document) (bson.D, error) {
	elems, err := doc.Elements()
	if err != nil {
		return nil, err
	}
	out := make(bson.D, len(elems))
	for i, e := range elems {
		v, err := decodeValue(e.Value())
		if err != nil {
			return nil, err
		}
		out[i] = bson.E{Key: e.Key(), Value: v}
	}
	return out, nil
}

func decodeValue(v bsoncore.Value) (interface{}, error) {
	switch v.Type {
	case bsontype.Double:
		return v.Double(), nil
	case bsontype.String:
		return v.StringValue(), nil
	case bsontype.EmbeddedDocument:
		return decodeElements(v.Document())
	case bsontype.Array:
		values, err := v.Array().Values()
		if err != nil {
			return nil, err
		}
		out := make(bson.A, len(values))
		for i, item := range values {
			if out[i], err = decodeValue(item); err != nil {
				return nil, err
			}
		}
		return out, nil
	case bsontype.Binary:
		sub, data := v.Binary()
		return primitive.Binary{Subtype: sub, Data: append([]byte{}, data...)}, nil
	case bsontype.Undefined:
		return primitive.Undefined{}, nil
	case bsontype.ObjectID:
		return v.ObjectID(), nil
	case bsontype.Boolean:
		return v.Boolean(), nil
	case bsontype.DateTime:
		return primitive.DateTime(v.DateTime()), nil
	case bsontype.Null:
		return nil, nil
	case bsontype.Regex:
		pattern, options := v.Regex()
		return primitive.Regex{Pattern: pattern, Options: options}, nil
	case bsontype.Int32:
		return v.Int32(), nil
	case bsontype.Timestamp:
		t, i := v.Timestamp()
		return primitive.Timestamp{T: t, I: i}, nil
	case bsontype.Int64:
		return v.Int64(), nil
	case bsontype.Decimal128:
		return v.Decimal128(), nil
	case bsontype.MinKey:
		return primitive.MinKey{}, nil
	case bsontype.MaxKey:
		return primitive.MaxKey{}, nil
	case bsontype.Symbol:
		return primitive.Symbol(v.Symbol()), nil
	case bsontype.JavaScript:
		return primitive.JavaScript(v.JavaScript()), nil
	}
	return nil, fmt.Errorf("unsupported BSON type %v", v.Type)
}
