package main

import (
	"strconv"

	"go.mongodb.org/mongo-driver/bson"
	"go.mongodb.org/mongo-driver/bson/bsontype"
	"go.mongodb.org/mongo-driver/bson/primitive"
	"go.mongodb.org/mongo-driver/x/bsonx/bsoncore"
)

// encodeDocument encodes a document, with the common kinds of value written directly.
func encodeDocument(d bson.D) ([]byte, error) {
	return appendDocument(make([]byte, 0, 128), d)
}

// encodeReply encodes a reply. Documents already encoded (a cursor batch's bson.Raw, see take)
// are copied as bytes: the driver's own encoder re-reads raw documents element by element, which
// made a 50,000-document answer spend more time encoding than finding. Other values go through
// the driver's encoder.
func encodeReply(d bson.D) ([]byte, error) {
	return appendDocument(make([]byte, 0, 256), d)
}

func appendDocument(dst []byte, d bson.D) ([]byte, error) {
	idx, dst := bsoncore.ReserveLength(dst)
	var err error
	for _, e := range d {
		if dst, err = appendElement(dst, e.Key, e.Value); err != nil {
			return nil, err
		}
	}
	dst = append(dst, 0)
	return bsoncore.UpdateLength(dst, idx, int32(len(dst)-int(idx))), nil
}

func appendElement(dst []byte, key string, v interface{}) ([]byte, error) {
	switch t := v.(type) {
	case string:
		return bsoncore.AppendStringElement(dst, key, t), nil
	case int32:
		return bsoncore.AppendInt32Element(dst, key, t), nil
	case int64:
		return bsoncore.AppendInt64Element(dst, key, t), nil
	case float64:
		return bsoncore.AppendDoubleElement(dst, key, t), nil
	case bool:
		return bsoncore.AppendBooleanElement(dst, key, t), nil
	case nil:
		return bsoncore.AppendNullElement(dst, key), nil
	case primitive.DateTime:
		return bsoncore.AppendDateTimeElement(dst, key, int64(t)), nil
	case bson.Raw:
		return bsoncore.AppendDocumentElement(dst, key, t), nil
	case bson.D:
		dst = bsoncore.AppendHeader(dst, bsontype.EmbeddedDocument, key)
		return appendDocument(dst, t)
	case *bson.D:
		dst = bsoncore.AppendHeader(dst, bsontype.EmbeddedDocument, key)
		return appendDocument(dst, *t)
	case bson.A:
		dst = bsoncore.AppendHeader(dst, bsontype.Array, key)
		idx, out := bsoncore.ReserveLength(dst)
		var err error
		for i, item := range t {
			if out, err = appendElement(out, strconv.Itoa(i), item); err != nil {
				return nil, err
			}
		}
		out = append(out, 0)
		return bsoncore.UpdateLength(out, idx, int32(len(out)-int(idx))), nil
	}
	typ, raw, err := bson.MarshalValue(v)
	if err != nil {
		return nil, err
	}
	return append(bsoncore.AppendHeader(dst, typ, key), raw...), nil
}
