package pool

import "hash/maphash"

// keyTable indexes the undecided keyed jobs by Key for Cancel and the
// duplicate check. It is a chained hash table threaded through the job
// records by id (job.keyNext), so that adding and removing a key stores two
// ints, never allocates and needs no write barrier, and each key is hashed
// once, outside the lock (see hashKey). The Executor's mutex guards it.
type keyTable struct {
	seed    maphash.Seed
	recs    *[]*job // the records, by id
	buckets []int   // ids of the chains' first jobs, 0 if empty; len is a power of two
	shift   uint    // 64 - log2(len(buckets)): a hash's bucket is its top bits
	n       int
}

func newKeyTable(size int, recs *[]*job) keyTable {
	t := keyTable{seed: maphash.MakeSeed(), recs: recs}
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
	t.buckets, t.shift = make([]int, 1<<bits), 64-bits
	recs := *t.recs
	for _, id := range old {
		for id != 0 {
			j := recs[id]
			id = j.keyNext
			i := j.keyHash >> t.shift
			j.keyNext, t.buckets[i] = t.buckets[i], j.id
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
	recs := *t.recs
	for id := t.buckets[h>>t.shift]; id != 0; {
		j := recs[id]
		if j.keyHash == h && j.key == k {
			return j
		}
		id = j.keyNext
	}
	return nil
}

// add adds j, whose key and keyHash are set and not in t.
func (t *keyTable) add(j *job) {
	if t.n >= len(t.buckets) {
		t.resize(2 * len(t.buckets))
	}
	i := j.keyHash >> t.shift
	j.keyNext, t.buckets[i] = t.buckets[i], j.id
	t.n++
}

// remove removes j, which is in t.
func (t *keyTable) remove(j *job) {
	p := &t.buckets[j.keyHash>>t.shift]
	for *p != j.id {
		p = &(*t.recs)[*p].keyNext
	}
	*p = j.keyNext
	t.n--
}
