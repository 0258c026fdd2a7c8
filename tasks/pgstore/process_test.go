package pgstore_test

func helperProcess() bool { return false }
