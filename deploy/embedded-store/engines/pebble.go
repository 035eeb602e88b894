package engines

import (
	"bytes"
	"context"
	"errors"

	"github.com/cockroachdb/pebble/v2"
)

// Pebble keeps everything in one keyspace: P 'd' <_id key> and P 'i' <name> 0x00 <entry>.
type Pebble struct {
	db *pebble.DB
}

func OpenPebble(dir string, cacheBytes int64) (*Pebble, error) {
	cache := pebble.NewCache(cacheBytes)
	defer cache.Unref()
	opts := &pebble.Options{
		Cache:        cache,
		MemTableSize: 16 << 20,
		Logger:       quietLogger{},
	}
	db, err := pebble.Open(dir, opts)
	if err != nil {
		return nil, err
	}
	return &Pebble{db: db}, nil
}

func (p *Pebble) Name() string { return "pebble" }

func docKey(coll string, id []byte) []byte {
	k := make([]byte, 0, len(coll)+2+len(id))
	k = append(append(k, coll...), 0, 'd')
	return append(k, id...)
}

func entryPrefix(coll, index string, key []byte) []byte {
	k := make([]byte, 0, len(coll)+len(index)+3+len(key))
	k = append(append(k, coll...), 0, 'i')
	k = append(append(k, index...), 0)
	return append(k, key...)
}

func (p *Pebble) Apply(b *Batch, sync bool) error {
	wb := p.db.NewBatch()
	defer wb.Close()
	for _, op := range b.Ops {
		var k []byte
		if op.Index == "" {
			k = docKey(op.Coll, op.Key)
		} else {
			k = entryPrefix(op.Coll, op.Index, op.Key)
		}
		var err error
		if op.Del {
			err = wb.Delete(k, nil)
		} else {
			err = wb.Set(k, op.Value, nil)
		}
		if err != nil {
			return err
		}
	}
	if sync {
		return wb.Commit(pebble.Sync)
	}
	return wb.Commit(pebble.NoSync)
}

func (p *Pebble) Get(coll string, id []byte) ([]byte, error) {
	v, closer, err := p.db.Get(docKey(coll, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer closer.Close()
	return append([]byte(nil), v...), nil
}

func (p *Pebble) Scan(coll, index string, prefix []byte, reverse bool, fn func(entry []byte) bool) error {
	base := entryPrefix(coll, index, nil)
	lower := entryPrefix(coll, index, prefix)
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: prefixEnd(lower)})
	if err != nil {
		return err
	}
	ok := it.First()
	if reverse {
		ok = it.Last()
	}
	for ; ok; ok = step(it, reverse) {
		if !fn(it.Key()[len(base):]) {
			break
		}
	}
	return errors.Join(it.Error(), it.Close())
}

func (p *Pebble) ScanEach(coll, index string, prefixes [][]byte, fn func(i int, entry []byte) bool) error {
	base, key := entryPrefix(coll, index, nil), func(pre []byte) []byte { return entryPrefix(coll, index, pre) }
	if index == "" {
		base, key = docKey(coll, nil), func(pre []byte) []byte { return docKey(coll, pre) }
	}
	it, err := p.db.NewIter(&pebble.IterOptions{LowerBound: base, UpperBound: prefixEnd(base)})
	if err != nil {
		return err
	}
	for i, pre := range prefixes {
		lower := key(pre)
		for ok := it.SeekGE(lower); ok && bytes.HasPrefix(it.Key(), lower); ok = it.Next() {
			if !fn(i, it.Key()[len(base):]) {
				break
			}
		}
	}
	return errors.Join(it.Error(), it.Close())
}

func step(it *pebble.Iterator, reverse bool) bool {
	if reverse {
		return it.Prev()
	}
	return it.Next()
}

// Compact compacts the whole keyspace (after a bulk load, as a migration would).
func (p *Pebble) Compact() error {
	return p.db.Compact(context.Background(), []byte{0}, []byte{0xFF, 0xFF, 0xFF, 0xFF}, true)
}

func (p *Pebble) Metrics() string { return p.db.Metrics().String() }

// Close flushes the memtable first, so the next open has no WAL to replay (after a crash, the
// replay is bounded by the memtables: 2 x 16 MiB at most).
func (p *Pebble) Close() error {
	return errors.Join(p.db.Flush(), p.db.Close())
}

type quietLogger struct{}

func (quietLogger) Infof(string, ...interface{})  {}
func (quietLogger) Errorf(string, ...interface{}) {}
func (quietLogger) Fatalf(format string, args ...interface{}) {
	pebble.DefaultLogger.Fatalf(format, args...)
}
