// Package storetest is the contract every [tasks.Store] passes: one suite, [Run], that the
// memory, SQLite and PostgreSQL stores run in their tests.
//
// The suite never sleeps. The store under test comes with a [Clock] the suite moves forward:
// stores that own their time take a fake clock ([NewFakeClock]); a store on the database's
// clock moves its stored times back instead, which is the same thing to every rule of the
// contract (expiry at CreatedAt+TTL, leases, NotBefore).
//
//	func TestContract(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) tasks.Store {
//			clock := storetest.NewFakeClock()
//			return storetest.Timed(memstore.New(memstore.Config{Now: clock.Now}), clock)
//		})
//	}
package storetest
