package main

import (
	"sync"
	"time"

	"github.com/256dpi/lungo/bsonkit"
	"go.mongodb.org/mongo-driver/bson"
)

// cursors keeps what a find or aggregate did not send in its first batch, for getMore. A query's
// result is taken whole under the read lock, so later batches show the data as it was then.
type cursors struct {
	mu   sync.Mutex
	next int64
	open map[int64]*cursor
}

type cursor struct {
	ns   string
	docs bsonkit.List
	used time.Time
}

const cursorIdle = 10 * time.Minute

func newCursors() *cursors {
	c := &cursors{next: 1, open: map[int64]*cursor{}}
	go func() {
		for range time.Tick(time.Minute) {
			c.mu.Lock()
			for id, cur := range c.open {
				if time.Since(cur.used) > cursorIdle {
					delete(c.open, id)
				}
			}
			c.mu.Unlock()
		}
	}()
	return c
}

// take splits off one batch: batchSize documents (0: MongoDB's default of 101 for a first batch,
// no count limit for later ones), and never much more than batchBytes.
func take(docs bsonkit.List, batchSize int, first bool) (bson.A, bsonkit.List) {
	if batchSize <= 0 {
		batchSize = len(docs)
		if first && batchSize > 101 {
			batchSize = 101
		}
	}
	batch := bson.A{}
	size := 0
	for len(docs) > 0 && len(batch) < batchSize && (size < batchBytes || len(batch) == 0) {
		// Encoded once here, to know the batch's size, and sent as these bytes.
		if raw, ok := encodedBytes(docs[0]); ok {
			batch = append(batch, raw)
			size += len(raw)
			docs = docs[1:]
			continue
		}
		raw, err := encodeDocument(*docs[0])
		if err != nil {
			batch = append(batch, *docs[0])
			size += 1024
		} else {
			batch = append(batch, bson.Raw(raw))
			size += len(raw)
		}
		docs = docs[1:]
	}
	return batch, docs
}

func (c *cursors) first(ns string, docs bsonkit.List, batchSize int) bson.D {
	batch, rest := take(docs, batchSize, true)
	var id int64
	if len(rest) > 0 {
		c.mu.Lock()
		id = c.next
		c.next++
		c.open[id] = &cursor{ns: ns, docs: rest, used: time.Now()}
		c.mu.Unlock()
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "firstBatch", Value: batch}, {Key: "id", Value: id}, {Key: "ns", Value: ns}}}}
}

func (c *cursors) more(id int64, batchSize int) (bson.D, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.open[id]
	if cur == nil {
		return nil, cmdError(43, "CursorNotFound", "cursor id not found")
	}
	batch, rest := take(cur.docs, batchSize, false)
	cur.docs, cur.used = rest, time.Now()
	next := id
	if len(rest) == 0 {
		delete(c.open, id)
		next = 0
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "nextBatch", Value: batch}, {Key: "id", Value: next}, {Key: "ns", Value: cur.ns}}}}, nil
}

func (c *cursors) kill(id int64) {
	c.mu.Lock()
	delete(c.open, id)
	c.mu.Unlock()
}
