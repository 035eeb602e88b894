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

// decodeFields decodes only the named top-level fields of a stored document (a find's filter,
// sort and projection fields: fieldsOf), stepping over the others undecoded. A message's search
// stems, most of its bytes, are never turned into Go values for a page that does not show them.
func decodeFields(raw []byte, fields map[string]struct{}) (bson.D, error) {
	length, rest, ok := bsoncore.ReadLength(raw)
	if !ok || length < 5 || int(length) > len(raw) || raw[length-1] != 0 {
		return nil, bsoncore.NewInsufficientBytesError(raw, raw)
	}
	rest = rest[:length-5]
	out := make(bson.D, 0, len(fields))
	for len(rest) > 0 {
		elem, after, ok := bsoncore.ReadElement(rest)
		if !ok {
			return nil, bsoncore.NewInsufficientBytesError(raw, rest)
		}
		rest = after
		if _, named := fields[string(elem.KeyBytes())]; !named {
			continue
		}
		if err := elem.Validate(); err != nil {
			return nil, err
		}
		v, err := decodeValue(elem.Value())
		if err != nil {
			return nil, err
		}
		out = append(out, bson.E{Key: elem.Key(), Value: v})
	}
	return out, nil
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
