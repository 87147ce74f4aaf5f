package sqlite

// CheckedBefore is checkedBefore, for the tests.
var CheckedBefore = checkedBefore
