package tasks

// SetIDs makes x name its tasks with ids (tests need stable bytes).
func SetIDs(x *Tasks, ids func() string) { x.newID = ids }
