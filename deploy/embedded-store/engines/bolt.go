package engines

import (
	"bytes"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Bolt keeps each collection in a bucket named P, with a sub-bucket "d" for the documents and one
// "i"+name per index: bbolt does not compress key prefixes, so the prefix is a bucket path.
type Bolt struct {
	db *bolt.DB
}

func OpenBolt(dir string) (*Bolt, error) {
	db, err := bolt.Open(filepath.Join(dir, "store.db"), 0o600, &bolt.Options{
		Timeout:        time.Second,
		NoFreelistSync: true,
		FreelistType:   bolt.FreelistMapType,
	})
	if err != nil {
		return nil, err
	}
	return &Bolt{db: db}, nil
}

func (b *Bolt) Name() string { return "bbolt" }

// SetNoSync turns fsync off (a bulk load: synced once at the end).
func (b *Bolt) SetNoSync(on bool) { b.db.NoSync = on }

func sub(index string) []byte {
	if index == "" {
		return []byte("d")
	}
	return []byte("i" + index)
}

func (b *Bolt) Apply(batch *Batch, sync bool) error {
	nosync := b.db.NoSync
	if !sync {
		b.db.NoSync = true
		defer func() { b.db.NoSync = nosync }()
	}
	return b.db.Update(func(tx *bolt.Tx) error {
		var lastColl, lastIndex string
		var bk *bolt.Bucket
		for _, op := range batch.Ops {
			if bk == nil || op.Coll != lastColl || op.Index != lastIndex {
				c, err := tx.CreateBucketIfNotExists([]byte(op.Coll))
				if err != nil {
					return err
				}
				if bk, err = c.CreateBucketIfNotExists(sub(op.Index)); err != nil {
					return err
				}
				lastColl, lastIndex = op.Coll, op.Index
			}
			var err error
			if op.Del {
				err = bk.Delete(op.Key)
			} else {
				v := op.Value
				if v == nil {
					v = []byte{}
				}
				err = bk.Put(op.Key, v)
			}
			if err != nil {
				return err
			}
		}
		return nil
	})
}

func (b *Bolt) bucket(tx *bolt.Tx, coll, index string) *bolt.Bucket {
	c := tx.Bucket([]byte(coll))
	if c == nil {
		return nil
	}
	return c.Bucket(sub(index))
}

func (b *Bolt) Get(coll string, id []byte) ([]byte, error) {
	var out []byte
	err := b.db.View(func(tx *bolt.Tx) error {
		if bk := b.bucket(tx, coll, ""); bk != nil {
			if v := bk.Get(id); v != nil {
				out = append([]byte(nil), v...)
			}
		}
		return nil
	})
	return out, err
}

func (b *Bolt) Scan(coll, index string, prefix []byte, reverse bool, fn func(entry []byte) bool) error {
	return b.db.View(func(tx *bolt.Tx) error {
		bk := b.bucket(tx, coll, index)
		if bk == nil {
			return nil
		}
		c := bk.Cursor()
		var k []byte
		if reverse {
			end := prefixEnd(prefix)
			if end == nil {
				k, _ = c.Last()
			} else if k, _ = c.Seek(end); k == nil {
				k, _ = c.Last()
			} else {
				k, _ = c.Prev()
			}
		} else {
			k, _ = c.Seek(prefix)
		}
		for ; k != nil && bytes.HasPrefix(k, prefix); k = move(c, reverse) {
			if !fn(k) {
				break
			}
		}
		return nil
	})
}

func (b *Bolt) ScanEach(coll, index string, prefixes [][]byte, fn func(i int, entry []byte) bool) error {
	return b.db.View(func(tx *bolt.Tx) error {
		bk := b.bucket(tx, coll, index)
		if bk == nil {
			return nil
		}
		c := bk.Cursor()
		for i, pre := range prefixes {
			for k, _ := c.Seek(pre); k != nil && bytes.HasPrefix(k, pre); k, _ = c.Next() {
				if !fn(i, k) {
					break
				}
			}
		}
		return nil
	})
}

func move(c *bolt.Cursor, reverse bool) []byte {
	var k []byte
	if reverse {
		k, _ = c.Prev()
	} else {
		k, _ = c.Next()
	}
	return k
}

func (b *Bolt) Close() error { return b.db.Close() }
