// Package sinkmode is the end-to-end test of the Delta sink's upsert mode
// (mergeKeys): a stream runs in-process as the CLI runs it (infra/streams,
// local directories), the same keys arrive in three batches, the commit of
// the second batch fails after its data files were written (a crash
// between write and commit), the stream is run again, and the table is
// read back by delta-rs (the Python deltalake package) and by Spark with
// delta-spark (tests/readers/read_delta.py): each key once, with its last
// value, and one MERGE commit per batch. The same reader processes read an
// outputMode=complete table (only the last batch's rows) and a partitionBy
// table (rows, NULL partition value, partition columns). A second test appends with
// delta-rs (schema_mode="merge", a new nullable column) between two runs:
// the stream adopts the column instead of needing a full refresh.
// TestReplaceWhereReadBack runs selective overwrites (replaceWhere, one
// crashing between write and commit) and reads the table back with both
// engines; TestReplaceWhereMatchesSpark compares Tributary's replaceWhere
// with Spark's on the same rows for a set of predicates
// (spark_replace.py).
//
// The package has no non-test code.
package sinkmode
