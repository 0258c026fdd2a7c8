package pool

import "hash/maphash"

// keyTable indexes the undecided keyed jobs by Key for Cancel and the
// duplicate check. It is a chained hash table threaded through the job
// records (job.keyNext), so that adding and removing a key writes two
// pointers and never allocates, and each key is hashed once, outside the
// lock (see hashKey). The Executor's mutex guards it.
type keyTable struct {
	seed    maphash.Seed
	buckets []*job // len is a power of two
	shift   uint   // 64 - log2(len(buckets)): a hash's bucket is its top bits
	n       int
}

func newKeyTable(size int) keyTable {
	t := keyTable{seed: maphash.MakeSeed()}
	t.resize(max(size, 8))
	return t
}

// resize rehashes into at least size buckets.
func (t *keyTable) resize(size int) {
	bits := uint(3)
	for 1<<bits < size {
		bits++
	}
	old := t.buckets
	t.buckets, t.shift = make([]*job, 1<<bits), 64-bits
	for _, j := range old {
		for j != nil {
			next := j.keyNext
			i := j.keyHash >> t.shift
			j.keyNext, t.buckets[i] = t.buckets[i], j
			j = next
		}
	}
}

// hashKey hashes a non-zero key. Multiplying spreads Owner, which often
// alone tells keys apart (many connections use request id 1), into the top
// bits.
func (t *keyTable) hashKey(k Key) uint64 {
	return (maphash.String(t.seed, k.ID) ^ k.Owner) * 0x9e3779b97f4a7c15
}

// get returns the job with key k, whose hash is h, or nil.
func (t *keyTable) get(k Key, h uint64) *job {
	for j := t.buckets[h>>t.shift]; j != nil; j = j.keyNext {
		if j.keyHash == h && j.key == k {
			return j
		}
	}
	return nil
}

// add adds j, whose key and keyHash are set and not in t.
func (t *keyTable) add(j *job) {
	if t.n >= len(t.buckets) {
		t.resize(2 * len(t.buckets))
	}
	i := j.keyHash >> t.shift
	j.keyNext, t.buckets[i] = t.buckets[i], j
	t.n++
}

// remove removes j, which is in t.
func (t *keyTable) remove(j *job) {
	p := &t.buckets[j.keyHash>>t.shift]
	for *p != j {
		p = &(*p).keyNext
	}
	*p, j.keyNext = j.keyNext, nil
	t.n--
}
