// Package storetest is the contract every [tasks.Store] passes: one suite, [Run], that the
// memory, SQLite and PostgreSQL stores run in their tests.
//
// The suite never sleeps. The store under test comes with a [Clock] the suite moves forward:
// stores that own their time take a fake clock ([NewFakeClock]); a store on the database's
// clock moves its stored times back instead, which is the same thing to every rule of the
// contract (expiry at CreatedAt+TTL, leases, NotBefore).
//
// Beyond the comments of [tasks.Store], the contract fixes: Create fills a zero CreatedAt
// and UpdatedAt from the store's clock; a task's ID, Scope and CreatedAt never change after
// Create, and a Put with a zero UpdatedAt keeps the stored one; ClaimNext moves Revision on
// (it writes Attempt) while Renew and Release do not; of the runnable tasks ClaimNext takes
// the oldest; an expired task stops counting against the limits (a Create at a limit
// deletes the expired tasks in its way).
//
// [ReadOnly] makes a file unwritable to the test process, root included (the immutable
// attribute), for a file store's refusal of a database it cannot write.
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) tasks.Store {
//			clock := storetest.NewFakeClock()
//			return storetest.Timed(memstore.New(memstore.Config{Now: clock.Now}), clock)
//		})
//	}
package storetest
